/**
 * Makes a reel from three local clips with an API key:
 *
 *   REELSMITH_URL=http://localhost:8080 REELSMITH_API_KEY=rs_live_... \
 *     node packages/sdk/dist/examples/make-reel.js a.mp4 b.mp4 c.mp4 [reel.mp4]
 *
 * Uploads the clips, makes the reel (with an Idempotency-Key, so a retried request never makes a
 * second job), waits for it with back-off, and downloads it.
 */
import { downloadReel, makeReel, ReelsmithClient, uploadFile } from '../src/index.js';

export async function makeReelFromClips(
  opts: { baseUrl: string; apiKey: string; clips: string[]; out: string; title?: string },
  log: (line: string) => void = console.log,
): Promise<{ jobId: string; bytes: number }> {
  const client = new ReelsmithClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey });
  const keys: string[] = [];
  for (const clip of opts.clips) {
    const up = await uploadFile(client, clip);
    log(`uploaded ${clip}: ${up.object_key} (${up.duration_sec.toFixed(1)} s)`);
    keys.push(up.object_key);
  }
  const { jobId } = await makeReel(
    client,
    { media_files: keys, title_config: { text: opts.title ?? 'Made with the Reelsmith SDK' } },
    { onStatus: (s) => log(`${s.status} ${s.progress}%`) },
  );
  const bytes = await downloadReel(client, jobId, opts.out);
  log(`reel ${jobId}: ${bytes} bytes in ${opts.out}`);
  return { jobId, bytes };
}

if (require.main === module) {
  const [a, b, c, out = 'reel.mp4'] = process.argv.slice(2);
  // An example program, not a service: it takes its two settings from the environment.
  // eslint-disable-next-line no-restricted-properties
  const { REELSMITH_URL: baseUrl = 'http://localhost:8080', REELSMITH_API_KEY: apiKey } = process.env;
  if (!a || !b || !c || !apiKey) {
    console.error('usage: REELSMITH_API_KEY=rs_live_... node make-reel.js clip1.mp4 clip2.mp4 clip3.mp4 [reel.mp4]');
    process.exit(2);
  }
  makeReelFromClips({ baseUrl, apiKey, clips: [a, b, c], out }).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
