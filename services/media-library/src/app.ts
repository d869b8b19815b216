import fs from 'node:fs';
import os from 'node:os';
import { Interval, createObjectStore, type App, type Platform, type RunningConsumer } from '@reelsmith/kit';
import type { Config } from './config.js';
import { LibraryService } from './domain/library.service.js';
import { MediaService } from './domain/media.service.js';
import { ReelsService } from './domain/reels.service.js';
import { DrizzleLibraryRepository } from './repositories/library.repository.js';
import { listLibraryFiles } from './repositories/library-files.js';
import { DrizzleMediaRepository } from './repositories/media.repository.js';
import { deletionFacts } from './repositories/deletion-facts.js';
import { engineTools, libraryObjects, libraryTools } from './repositories/media-tools.js';
import { startConsumers } from './transport/events.js';
import { grpcBinding } from './transport/grpc.js';
import { ShowcaseService } from './domain/showcase.service.js';
import { DrizzleShowcaseRepository } from './repositories/showcase.repository.js';
import { grabPreviewFrames } from './repositories/showcase-frames.js';
import { showcaseHandlers } from './transport/showcase.grpc.js';
import { TempoService } from './domain/tempo.service.js';
import { DrizzleTempoRepository } from './repositories/tempo.repository.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const store = createObjectStore(p.config);
  const replicaId = `${os.hostname()}/${process.pid}`;
  const mediaRepo = new DrizzleMediaRepository(p.db.orm);
  const facts = deletionFacts(p.bus);
  const service = new MediaService(mediaRepo, store, engineTools, p.log, {
    concurrency: p.config.ANALYSIS_CONCURRENCY,
    replicaId,
    facts,
  });
  const reels = new ReelsService(mediaRepo, store, p.log, facts);
  const library = new LibraryService(new DrizzleLibraryRepository(p.db.orm), libraryObjects(store), libraryTools, p.log, { replicaId });
  const expiry = new Interval(() => service.expireUnused(new Date()), p.config.UPLOAD_SWEEP_INTERVAL_MS, p.log);
  const reelExpiry = new Interval(() => reels.expireReels(new Date()), p.config.REEL_SWEEP_INTERVAL_MS, p.log);
  let starter: Promise<unknown> = Promise.resolve();
  let refresher: Promise<unknown> = Promise.resolve();
  let stopping = false;
  let consumers: RunningConsumer[] = [];
  return {
    grpc: [
      grpcBinding(
        service,
        reels,
        library,
        showcaseHandlers(new ShowcaseService(new DrizzleShowcaseRepository(p.db.orm), store, grabPreviewFrames, p.log)),
        new TempoService(new DrizzleTempoRepository(p.db.orm)),
      ),
    ],
    checks: [{ name: 'storage', check: () => store.ping() }],
    start: async () => {
      expiry.start();
      reelExpiry.start();
      await service.resumePending();
      // Uploads an older engine analysed are analysed again, in the background.
      refresher = service
        .refreshStale(() => stopping)
        .catch((e: unknown) => p.log.error({ err: e }, 'upload analyses could not be redone'));
      consumers = await startConsumers(p.bus, library, p.log);
      const dir = p.config.LIBRARY_STARTER_DIR;
      if (dir !== 'none' && fs.existsSync(dir) && (await library.isEmpty())) {
        // In the background: serving does not wait for the analyses of the starter content.
        p.log.info({ dir }, 'libraries are empty: importing the starter content');
        starter = library
          .importMany(listLibraryFiles(dir), undefined, () => stopping)
          .then((s) => p.log.info(s, 'starter content imported'))
          .catch((e: unknown) => p.log.error({ err: e }, 'starter content import failed'));
      } else {
        // Library items an older engine analysed are analysed again, in the background.
        starter = library
          .refreshStale(() => stopping)
          .then((s) => (s.refreshed || s.failed ? p.log.info(s, 'library analyses of an older engine redone') : undefined))
          .catch((e: unknown) => p.log.error({ err: e }, 'library analyses could not be redone'));
      }
    },
    drain: async () => {
      stopping = true;
      await Promise.all(consumers.map((c) => c.stop()));
      await expiry.stop();
      await reelExpiry.stop();
      await service.drain();
      await starter;
      await refresher;
    },
  };
}
