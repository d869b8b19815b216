/**
 * `npm run library:import -- DIR`: imports every video and audio file under DIR into the stock
 * libraries of the Reelsmith configured by this environment (DATA_DIR, MEDIA_LIBRARY_DATABASE_URL
 * or DATABASE_URL, storage). When its media-library is running (found through
 * MEDIA_LIBRARY_GRPC_ADDR or DATA_DIR/run/supervisor.json), each file is stored and handed to it;
 * otherwise this process opens the database itself (an embedded database allows one process).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  createLogger,
  createObjectStore,
  dial,
  migrate,
  openDatabase,
  readMigrations,
  runningServicePort,
  useInternalToken,
} from '@reelsmith/kit';
import { media } from '@reelsmith/proto';
import { loadImportConfig } from './config.js';
import { LibraryService, importMany, type ImportOutcome, type LibraryFile } from './domain/library.service.js';
import { DrizzleLibraryRepository } from './repositories/library.repository.js';
import { listLibraryFiles } from './repositories/library-files.js';
import { libraryObjects, libraryTools } from './repositories/media-tools.js';

const say = (s: string) => process.stdout.write(`${s}\n`);

/** The running media-library's gRPC address, if there is one. */
function runningService(dataDir: string, given: string | undefined): string | undefined {
  if (given) return given;
  const port = runningServicePort(dataDir, 'media-library');
  return port ? `127.0.0.1:${port}` : undefined;
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir || !fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    process.stderr.write('usage: npm run library:import -- DIR   (DIR: a folder of videos and music; subfolders are categories)\n');
    process.exit(64);
  }
  const config = loadImportConfig();
  const log = createLogger({ service: 'library-import', level: config.LOG_LEVEL });
  const files = listLibraryFiles(dir);
  say(`${files.length} file(s) under ${path.resolve(dir)}`);
  const store = createObjectStore(config);
  const progress = (done: number, total: number, f: LibraryFile, r: ImportOutcome | { error: string }) =>
    say(
      `[${done}/${total}] ${f.relative}: ${
        'error' in r ? `SKIPPED (${r.error})` : `${r.outcome} as ${r.item.kind === 'audio' ? 'music' : 'video'} in '${r.item.category}'`
      }`,
    );

  const addr = runningService(config.DATA_DIR, config.MEDIA_LIBRARY_GRPC_ADDR);
  let close: () => Promise<void>;
  let summary;
  if (addr) {
    say(`media-library is running at ${addr}: importing through it`);
    useInternalToken(config.INTERNAL_TOKEN);
    const client = dial(media.MediaLibraryService, addr, { deadlineMs: 15 * 60_000 });
    // The service does the work; this process only stores each file where the service can read it.
    summary = await importMany(
      files,
      async (f) => {
        const staging = `library/incoming/${crypto.randomUUID()}${path.extname(f.filename).toLowerCase()}`;
        await store.put(staging, fs.createReadStream(f.path));
        const r = await client.importLibraryObject({ stagingKey: staging, filename: f.filename, category: f.category });
        return {
          outcome: r.outcome === 'duplicate' ? 'duplicate' : 'imported',
          item: { kind: r.item?.kind, category: r.item?.category } as ImportOutcome['item'],
        };
      },
      progress,
    );
    close = async () => client.close();
  } else {
    const db = await openDatabase({ url: config.DATABASE_URL, pgliteDir: path.join(config.DATA_DIR, 'db', 'media-library') });
    await migrate(db, readMigrations(path.join(__dirname, '..', 'migrations')));
    const lib = new LibraryService(new DrizzleLibraryRepository(db.orm), libraryObjects(store), libraryTools, log);
    summary = await lib.importMany(files, progress);
    close = () => db.close();
  }
  await close();
  say(`imported ${summary.imported}, already there ${summary.duplicates}, skipped ${summary.failed.length}`);
  for (const f of summary.failed) say(`  skipped ${f.file}: ${f.error}`);
  process.exit(summary.failed.length ? 2 : 0);
}

main().catch((e: unknown) => {
  process.stderr.write(`library import failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
