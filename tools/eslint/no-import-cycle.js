// ESLint rule: no import circle among a package's own files. A file's relative imports (static
// `import ... from`, `export ... from`, `import '...'`, type-only ones too: a circle of types is
// still a circle to read) are followed through the files on disk; an import that leads back to
// the file is reported with the circle it closes. No plugin dependency: the graph is read with a
// small scanner, and `./x.js` resolves to `x.ts` as TypeScript's node16 resolution does.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;
const COMMENT = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

/** The file a relative specifier names, or null (not a TypeScript/JavaScript file of the package). */
function resolve(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  for (const f of [`${stem}.ts`, `${stem}.tsx`, base, `${base}/index.ts`]) {
    if (fs.existsSync(f) && fs.statSync(f).isFile()) return f;
  }
  return null;
}

/** Relative imports of a file on disk, resolved; cached by modification time for one lint run. */
const cache = new Map();
function importsOf(file) {
  const mtime = fs.statSync(file).mtimeMs;
  const hit = cache.get(file);
  if (hit && hit.mtime === mtime) return hit.imports;
  const text = fs.readFileSync(file, 'utf8').replace(COMMENT, '');
  const imports = [...text.matchAll(IMPORT)].map((m) => resolve(file, m[1])).filter(Boolean);
  cache.set(file, { mtime, imports });
  return imports;
}

/** A path of imports from `start` back to `target` (the files after `start`), or null. */
function pathBack(start, target) {
  const seen = new Set([start]);
  const stack = [[start, [start]]];
  while (stack.length) {
    const [file, trail] = stack.pop();
    for (const next of importsOf(file)) {
      if (next === target) return trail;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push([next, [...trail, next]]);
    }
  }
  return null;
}

module.exports = {
  meta: {
    type: 'problem',
    docs: { description: 'no import circle among the files of a package' },
    schema: [],
  },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string' || !node.source.value.startsWith('.')) return;
      const target = resolve(file, node.source.value);
      if (!target || target === file) return;
      const trail = pathBack(target, file);
      if (!trail) return;
      const names = [file, ...trail, file].map((f) => path.basename(f)).join(' -> ');
      context.report({ node, message: `Import circle: ${names}. Move what both sides need into a file that neither imports back.` });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
