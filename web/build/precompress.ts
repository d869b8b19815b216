import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Text files worth compressing; images, video and fonts are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;
/** Below this a compressed copy saves less than its own headers cost. */
export const MIN_BYTES = 512;

export interface Compressed {
  file: string;
  bytes: number;
  br?: number;
  gz?: number;
}

/**
 * Writes `name.br` (brotli, best quality) and `name.gz` (gzip, level 9) beside every compressible
 * file of `dir` and its sub-folders, each only when it is smaller than the original, so a server
 * can send what the client accepts without compressing per request. Returns what it wrote.
 */
export async function precompressDir(dir: string): Promise<Compressed[]> {
  const files = (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .map((f) => path.join(dir, f))
    .filter((f) => COMPRESSIBLE.test(f) && fs.statSync(f).isFile());
  return Promise.all(
    files.map(async (file) => {
      const raw = fs.readFileSync(file);
      const out: Compressed = { file: path.relative(dir, file), bytes: raw.length };
      if (raw.length < MIN_BYTES) return out;
      const [br, gz] = await Promise.all([
        brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
        gzip(raw, { level: 9 }),
      ]);
      if (br.length < raw.length) {
        fs.writeFileSync(`${file}.br`, br);
        out.br = br.length;
      }
      if (gz.length < raw.length) {
        fs.writeFileSync(`${file}.gz`, gz);
        out.gz = gz.length;
      }
      return out;
    }),
  );
}

/** Vite plugin: precompresses the written build (public files included). */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'reelsmith:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      if (fs.existsSync(outDir)) await precompressDir(outDir);
    },
  };
}
