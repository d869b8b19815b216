import fs from 'node:fs';
import path from 'node:path';
import type { LibraryFile } from '../domain/library.service.js';

/** Licence and source notes, dot files and the like are not media; everything else is tried. */
const NOT_MEDIA = /(^\.|\.(txt|md|json|nfo|license|licence|jpg|jpeg|png)$)|^(LICENSE|LICENCE|README)/i;

/** Video files; they are imported before the rest. */
const VIDEO = /\.(mp4|mov|avi|mkv|webm)$/i;

/**
 * Every file under `dir` (sorted, so imports are repeatable), with its category: the name of its
 * first subfolder, or 'general' for files at the top. Videos come first: a clip imports in
 * seconds, a song of a few minutes takes longer to analyse, and the first-start demo reels wait
 * for the clips.
 */
export function listLibraryFiles(dir: string): LibraryFile[] {
  const root = path.resolve(dir);
  const out: LibraryFile[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && !NOT_MEDIA.test(e.name)) {
        const relative = path.relative(root, full);
        const parts = relative.split(path.sep);
        out.push({ path: full, relative, filename: e.name, category: parts.length > 1 ? parts[0]! : 'general' });
      }
    }
  };
  walk(root);
  return [...out.filter((f) => VIDEO.test(f.filename)), ...out.filter((f) => !VIDEO.test(f.filename))];
}
