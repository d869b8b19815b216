#!/usr/bin/env node
// `npm run bench:scale`: one long reel through the running product, on 1 and then 2 render workers.
//
// The product starts as `npm start` runs it (scripts/product.js) with RENDER_THREADS=1, so each
// worker's render is held to one thread (encoder, decoders, filters): on a 2-core machine, two
// workers act as two small machines.
// Inputs: the starter library's real footage (12 clips) and three 1080p30 clips, a 128 BPM song
// looped to the reel's length. A signed-up admin (unlimited) previews the plan once (beat-mapped,
// Intelligence on, title, fades) and then renders exactly that plan with 1 worker, then 2 (the
// same DATA_DIR, so the same uploads). Printed, never asserted:
//   wall time from submit to "completed", speed-up; frames and audio samples against the plan's;
//   at every chunk join the SSIM of the two frames around it against the 1-worker render; the
//   audio against the 1-worker render (identical samples, or the level of the difference); the
//   peak memory (RSS) of each worker with its ffmpeg children.
//
//   npm run bench:scale                      # a 10-minute 1080p30 reel, workers 1 then 2
//   node scripts/bench-scale.js --minutes=2  # a shorter reel, for a quick look
'use strict';
/* global fetch, FormData, Blob */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setInterval, clearInterval } = require('node:timers');
const { freePort } = require('@reelsmith/kit');
const { ROOT, mailReader, sleep, startProduct, stopProduct, waitFor } = require('./product.js');

const arg = (name, def) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : def;
};
const MINUTES = Number(arg('minutes', 10));
const WORKERS = arg('workers', '1,2').split(',').map(Number);
const KEEP = process.argv.includes('--keep');
const FPS = 30;
const RATE = 48000;

const log = (...a) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);
const ff = (args) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

// ---------------------------------------------------------------------------------------------
// Inputs.

function makeInputs(dir) {
  const starter = path.join(ROOT, 'media', 'starter');
  const real = fs
    .readdirSync(starter, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.mp4'))
    .sort()
    .map((f) => path.join(starter, f));
  const x264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '60'];
  const synthetic = [
    ['testsrc2=size=1920x1080:rate=30:duration=10', 'hd-testsrc.mp4'],
    ['mandelbrot=size=1920x1080:rate=30', 'hd-mandelbrot.mp4'],
    ['life=size=1920x1080:rate=30:mold=10:ratio=0.1:death_color=#0040a0:life_color=#ffd040', 'hd-life.mp4'],
  ].map(([src, name]) => {
    ff(['-f', 'lavfi', '-i', src, '-t', '10', ...x264, path.join(dir, name)]);
    return path.join(dir, name);
  });
  const song = path.join(starter, 'upbeat', 'drive-128bpm.mp3');
  const music = path.join(dir, 'drive-looped.mp3');
  ff(['-stream_loop', '-1', '-i', song, '-t', String(MINUTES * 60 + 20), '-c:a', 'libmp3lame', '-b:a', '192k', music]);
  return { clips: [...real, ...synthetic], music };
}

// ---------------------------------------------------------------------------------------------
// The API.

function client(base) {
  let token = '';
  const call = async (method, route, body) => {
    const form = body instanceof FormData;
    const r = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body && !form ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? (form ? body : JSON.stringify(body)) : undefined,
    });
    const text = await r.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    if (r.status >= 400) throw new Error(`${method} ${route}: ${r.status} ${text.slice(0, 300)}`);
    return json;
  };
  return {
    call,
    setToken: (t) => (token = t),
    async upload(file) {
      const form = new FormData();
      form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
      return call('POST', '/uploads/file', form);
    },
  };
}

async function admin(api, dataDir, email, password) {
  const code = mailReader(path.join(dataDir, 'mail'));
  await api.call('POST', '/auth/register', { email, password });
  const v = await api.call('POST', '/auth/verify-email', { email, code: await code(email) });
  api.setToken(v.session_token);
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'admin.js'), 'grant', email], {
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: 'ignore',
  });
  await waitFor(async () => (await api.call('GET', '/auth/me')).user.is_admin, 15_000, 'the admin grant');
}

// ---------------------------------------------------------------------------------------------
// Measuring.

/** Peak RSS (MiB) of each process tree rooted at the given pids, sampled every 250 ms until stop(). */
function memorySampler(roots) {
  const peak = new Map(roots.map((r) => [r, 0]));
  const sample = () => {
    const parent = new Map();
    const rss = new Map();
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const status = fs.readFileSync(`/proc/${d}/status`, 'utf8');
        parent.set(Number(d), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
        rss.set(Number(d), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024);
      } catch {
        // exited meanwhile
      }
    }
    const rootOf = (pid) => {
      for (let p = pid; p && p > 1; p = parent.get(p)) if (peak.has(p)) return p;
      return undefined;
    };
    const sum = new Map();
    for (const [pid, mib] of rss) {
      const r = rootOf(pid);
      if (r !== undefined) sum.set(r, (sum.get(r) ?? 0) + mib);
    }
    for (const [r, mib] of sum) peak.set(r, Math.max(peak.get(r), mib));
  };
  const t = setInterval(sample, 250);
  return {
    stop: () => {
      clearInterval(t);
      return [...peak.values()];
    },
  };
}

const probeFrames = (file) =>
  Number(
    execFileSync('ffprobe', [
      '-v',
      'error',
      '-count_packets',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=nb_read_packets',
      '-of',
      'csv=p=0',
      file,
    ])
      .toString()
      .trim(),
  );

/** The sound stream's length as the container states it (its edit list), in 48 kHz samples. */
const statedSamples = (file) =>
  Math.round(
    Number(
      execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=duration', '-of', 'csv=p=0', file])
        .toString()
        .trim(),
    ) * RATE,
  );

/** The first sound stream as interleaved stereo 16-bit samples at 48 kHz. */
const pcm = (file) => {
  const out = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '2', '-ar', String(RATE), '-f', 's16le', 'pipe:1'],
    {
      maxBuffer: 1 << 30,
    },
  );
  return new Int16Array(out.buffer, out.byteOffset, out.length / 2);
};

/** The SSIM of frames `at` (frame numbers) in a against the same frames in b. */
function ssimAt(a, b, at) {
  if (!at.length) return [];
  const sel = `select='${at.map((n) => `eq(n\\,${n})`).join('+')}',setpts=N/${FPS}/TB`;
  const out = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', a, '-i', b, '-lavfi', `[0:v]${sel}[a];[1:v]${sel}[b];[a][b]ssim=stats_file=-`, '-f', 'null', '-'],
    { maxBuffer: 1 << 26 },
  ).toString();
  return [...out.matchAll(/All:([\d.]+)/g)].map((m) => Number(m[1]));
}

/** The sound of b against a: identical samples, or the level of the difference (dBFS). */
function nullTest(a, b) {
  const n = Math.min(a.length, b.length);
  let differing = 0;
  let sq = 0;
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    if (d !== 0) {
      differing++;
      sq += d * d;
      peak = Math.max(peak, Math.abs(d));
    }
  }
  const db = (x) => (x > 0 ? 20 * Math.log10(x / 32768) : -Infinity);
  return { samples: n, lengthsDiffer: a.length !== b.length, differing, rmsDb: db(Math.sqrt(sq / Math.max(1, n))), peakDb: db(peak) };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-bench-scale-'));
  const dataDir = path.join(work, 'data');
  fs.mkdirSync(dataDir);
  log(`a ${MINUTES}-minute reel on ${WORKERS.join(', then ')} worker(s), RENDER_THREADS=1, in ${work}`);
  const inputs = makeInputs(work);
  const email = `scale-${Date.now()}@example.com`;
  const password = 'bench password';
  let request;
  let plan;
  const runs = [];
  for (const [k, workers] of WORKERS.entries()) {
    const port = await freePort();
    const product = await startProduct(dataDir, port, {
      RENDER_WORKERS: String(workers),
      RENDER_THREADS: '1',
      RENDER_FAN_OUT: 'true',
    });
    try {
      const api = client(`http://127.0.0.1:${port}`);
      if (k === 0) {
        await admin(api, dataDir, email, password);
        log(`uploading ${inputs.clips.length} clips and the music...`);
        const clips = [];
        for (const c of inputs.clips) clips.push((await api.upload(c)).object_key);
        const music = (await api.upload(inputs.music)).object_key;
        for (const key of [...clips, music])
          await waitFor(
            async () => (await api.call('GET', `/uploads/info?key=${encodeURIComponent(key)}`)).analysis === 'ready',
            600_000,
            `the analysis of ${key}`,
          );
        request = {
          media_files: clips,
          music_file: music,
          pacing_preset: 'standard',
          enable_beat_mapping: true,
          enable_intelligence: true,
          title_config: { enabled: true, text: 'Scale', font: 'Roboto-Bold.ttf', font_size: 72, position: 'center' },
          enable_fades: true,
          fade_in_duration_sec: 1,
          fade_out_duration_sec: 2,
          enable_letterbox: true,
          target_duration_sec: MINUTES * 60,
        };
        // The preview is a request with a deadline; on a machine this busy it may time out: again.
        for (let tries = 1; !plan; tries++) {
          try {
            plan = (await api.call('POST', '/jobs/plan', request)).plan;
          } catch (e) {
            if (tries >= 5 || !/: 50[34] /.test(String(e))) throw e;
            log(`the plan timed out (${tries}); again`);
          }
        }
        log(`plan: ${plan.segments.length} segments, ${fmt(plan.total_sec, 3)} s at ${plan.fps} fps`);
      } else {
        api.setToken((await api.call('POST', '/auth/login', { email, password })).session_token);
      }
      const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'run', 'supervisor.json'), 'utf8'));
      const pids = Object.entries(state.processes)
        .filter(([name]) => name.startsWith('render-worker'))
        .map(([, p]) => p.pid);
      const memory = memorySampler(pids);
      const t0 = Date.now();
      const { job_id: jobId } = await api.call('POST', '/jobs/assemble', { ...request, plan });
      let last = -1;
      const status = await waitFor(
        async () => {
          const s = await api.call('GET', `/jobs/${jobId}/status`);
          if (s.progress >= last + 10) {
            last = s.progress;
            log(`  ${workers} worker(s): ${s.progress} % (${s.message})`);
          }
          return s.status === 'completed' || s.status === 'failed' || s.status === 'cancelled' ? s : null;
        },
        4 * 3600_000,
        'the reel',
      );
      const wall = (Date.now() - t0) / 1000;
      const peaks = memory.stop();
      if (status.status !== 'completed') throw new Error(`the reel ended ${status.status}: ${status.message}`);
      const record = await api.call('GET', `/admin/jobs/${jobId}`);
      const reel = fs
        .readdirSync(path.join(dataDir, 'objects', 'reels'), { recursive: true, encoding: 'utf8' })
        .find((f) => f.endsWith(`${jobId}.mp4`));
      const file = path.join(work, `reel-${workers}w.mp4`);
      fs.copyFileSync(path.join(dataDir, 'objects', 'reels', reel), file);
      const workersUsed = new Set(record.render_chunks.map((c) => c.worker)).size;
      log(
        `${workers} worker(s): ${fmt(wall)} s, ${record.render_chunks.length} chunks on ${workersUsed} worker(s), peak RSS per worker ${peaks.map((m) => `${Math.round(m)} MiB`).join(', ')}`,
      );
      runs.push({ workers, wall, file, chunks: record.render_chunks, peaks, workersUsed });
    } finally {
      await stopProduct(product);
    }
    await sleep(1000);
  }

  // The plan's figures: frames of every segment on the reel's clock, 1600 samples a frame.
  const planFrames = plan.segments.reduce((s, g) => s + Math.round(g.end * plan.fps) - Math.round(g.start * plan.fps), 0);
  const planSamples = (planFrames * RATE) / plan.fps;
  const base = runs[0];
  const basePcm = pcm(base.file);
  console.log('');
  console.log(
    `bench:scale, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), load ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `reel: ${fmt(plan.total_sec, 3)} s, 1920x1080 ${plan.fps} fps, ${plan.segments.length} segments; plan: ${planFrames} frames, ${planSamples} samples a channel`,
  );
  console.log('');
  console.log(
    '| workers | wall time | speed-up | chunks (workers used) | frames | audio samples: stated / decoded | joins: SSIM vs 1 worker (min) | audio vs 1 worker | peak RSS per worker |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of runs) {
    const frames = probeFrames(r.file);
    const sound = r === base ? basePcm : pcm(r.file);
    const samples = sound.length / 2;
    // The joins: the last frame of each chunk and the first of the next.
    const joins = [];
    let at = 0;
    for (const c of r.chunks.slice(0, -1)) {
      at += c.frames;
      joins.push(at - 1, at);
    }
    const ssim = r === base ? [] : ssimAt(base.file, r.file, joins);
    const audio = r === base ? null : nullTest(basePcm, sound);
    const audioText = !audio
      ? '(the reference)'
      : audio.differing === 0 && !audio.lengthsDiffer
        ? 'identical'
        : `${audio.differing} samples differ, difference ${fmt(audio.rmsDb)} dBFS RMS, peak ${fmt(audio.peakDb)} dBFS`;
    console.log(
      `| ${r.workers} | ${fmt(r.wall)} s | ${fmt(base.wall / r.wall, 2)}x | ${r.chunks.length} (${r.workersUsed}) | ${frames} (plan ${planFrames}) | ${statedSamples(r.file)} / ${samples} (plan ${planSamples}) | ${r === base ? '(the reference)' : `${joins.length / 2} joins, min ${fmt(Math.min(...ssim), 4)}`} | ${audioText} | ${r.peaks.map((m) => `${Math.round(m)} MiB`).join(', ')} |`,
    );
  }
  console.log('');
  console.log(
    'targets: 2 workers >= 1.7x; frames and samples = the plan; SSIM at every join >= 0.98; audio identical or null below -90 dB',
  );
  console.log('(decoded AAC ends on a whole 1024-sample frame: up to 1023 samples of padding after the stated length)');
  if (!KEEP) fs.rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
