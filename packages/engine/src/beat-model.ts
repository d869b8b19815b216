/**
 * The beat model in the engine: the ONNX model trained by tools/beat-model (models/beats.onnx, a
 * temporal convolutional network), run by onnxruntime-node on one thread. It takes the features
 * of beat-features.ts and gives a beat and a downbeat activation (0..1) per frame at 100 fps.
 *
 * onnxruntime-node runs in a worker thread of its own, loaded with Node's own `require` there:
 * the session is created once per process and the features go to it (and the activations come
 * back) as transferred buffers, without a copy. In a host that gives modules their own globals
 * (Jest's module registry), onnxruntime's type checks would otherwise reject the typed arrays
 * its native code returns.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { FEATURE_FPS, beatFeatures } from './beat-features.js';
import { riseCurves } from './beat-tempo-prior.js';

export const BEAT_MODEL_FILE = path.join(__dirname, '..', 'models', 'beats.onnx');

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ort);
let session;
parentPort.on('message', async (m) => {
  try {
    session ??= await ort.InferenceSession.create(workerData.model, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    const out = await session.run({ spec: new ort.Tensor('float32', new Float32Array(m.data), m.dims) });
    const act = new Float32Array(out.act.data);
    parentPort.postMessage({ id: m.id, act: act.buffer }, [act.buffer]);
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
`;

interface Pending {
  resolve: (a: Float32Array) => void;
  reject: (e: Error) => void;
}

let worker: { w: Worker; pending: Map<number, Pending>; model: string } | undefined;
let nextId = 1;

function modelWorker(model: string) {
  if (worker && worker.model === model) return worker;
  void worker?.w.terminate();
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { ort: require.resolve('onnxruntime-node'), model } });
  w.unref();
  const pending = new Map<number, Pending>();
  const fail = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    if (worker?.w === w) worker = undefined;
  };
  w.on('message', (m: { id: number; act?: ArrayBuffer; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined || !m.act) p.reject(new Error(`beat model: ${m.error ?? 'no output'}`));
    else p.resolve(new Float32Array(m.act));
    if (pending.size === 0) w.unref();
  });
  w.on('error', fail);
  w.on('exit', () => fail(new Error('beat model: the worker stopped')));
  worker = { w, pending, model };
  return worker;
}

/** Uses `file` as the model from now on in this process (validation of other checkpoints). */
export function useBeatModel(file: string): void {
  modelWorker(file);
}

export interface Activations {
  beat: Float32Array;
  downbeat: Float32Array;
  fps: number;
  /** The features' rise curves (beat-tempo-prior.ts's riseCurves), the tempo prior's other input. */
  rises?: Float32Array[];
}

/** The model's activations for mono samples at 22,050 Hz, with the features' rise curves. */
export async function beatActivations(samples: Float32Array): Promise<Activations> {
  const f = beatFeatures(samples);
  const rises = riseCurves(f.data, f.bands, f.frames);
  return { ...(await activationsOf(f.data, f.bands, f.frames)), rises };
}

/**
 * The model run on features already computed (channel-major, beat-features.ts). The features'
 * buffer is handed to the model's thread: `data` is unusable afterwards unless `keep` is set.
 */
export async function activationsOf(data: Float32Array, bands: number, frames: number, keep = false): Promise<Activations> {
  const wk = modelWorker(worker?.model ?? BEAT_MODEL_FILE);
  const id = nextId++;
  const input = keep || data.byteOffset !== 0 || data.byteLength !== data.buffer.byteLength ? data.slice() : data;
  const act = await new Promise<Float32Array>((resolve, reject) => {
    wk.pending.set(id, { resolve, reject });
    wk.w.ref();
    wk.w.postMessage({ id, data: input.buffer, dims: [1, 2 * bands, frames] }, [input.buffer as ArrayBuffer]);
  });
  return { beat: act.slice(0, frames), downbeat: act.slice(frames, 2 * frames), fps: FEATURE_FPS };
}
