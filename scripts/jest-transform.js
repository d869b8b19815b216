// Jest's transform: @swc/jest, then each module's own binding of the numeric built-ins.
//
// Jest runs every test file in a vm context, whose global object is reached through V8's
// interceptors: a read of a global such as `Math`, `Number` or `Infinity` inside a hot loop
// costs about 35-50 times what it costs in plain Node (measured here: frameStats, the clip
// analysis' per-frame statistics, 0.7 ms a frame in Node and 36 ms under Jest). So a module's
// code reads them once, from a binding of its own, as it would be read in Node: the same
// objects (globalThis's), so behaviour does not change; only built-ins no test replaces are
// bound (not Date or the timers, which fake timers swap). A name the module itself declares at its
// top level is left out (binding it too would not parse).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { createTransformer } = require('@swc/jest');

const BUILTINS = [
  'Math',
  'Number',
  'Infinity',
  'NaN',
  'isFinite',
  'isNaN',
  'Array',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
];
/** Changes with this file, so Jest's cache never serves a module transformed by another version of it. */
const SALT = `jest-transform:${crypto
  .createHash('sha256')
  .update(fs.readFileSync(path.join(__dirname, 'jest-transform.js')))
  .digest('hex')
  .slice(0, 16)}`;

/** The binding for `code`: every built-in above but those the module declares at its top level. */
function bindingFor(code) {
  const own = new Set();
  for (const m of code.matchAll(/^(?:export\s+)?(?:const|let|var|class|(?:async\s+)?function\*?)\s+([A-Za-z0-9_$]+)/gm)) own.add(m[1]);
  const names = BUILTINS.filter((n) => !own.has(n));
  return names.length ? `const { ${names.join(', ')} } = globalThis;` : '';
}

/**
 * The code with its binding after the "use strict" directive (a directive must come first), on the
 * same line; without one, after a leading `#!` line (which must stay the first line: Jest strips it
 * before a transform runs, other callers may not), or first.
 */
function bind(code) {
  const binding = bindingFor(code);
  if (!binding) return code;
  const shebang = /^#![^\n]*\n/.exec(code)?.[0] ?? '';
  const directive = /^(?:\s*(?:\/\/[^\n]*\n|\/\*[\s\S]*?\*\/))*\s*(["'])use strict\1;/.exec(code.slice(shebang.length))?.[0];
  const at = shebang.length + (directive?.length ?? 0);
  return directive ? `${code.slice(0, at)} ${binding}${code.slice(at)}` : `${code.slice(0, at)}${binding} ${code.slice(at)}`;
}

module.exports = {
  createTransformer(options) {
    const swc = createTransformer(options);
    const out = (r) => (typeof r === 'string' ? bind(r) : { ...r, code: bind(r.code) });
    return {
      ...swc,
      process: (src, file, opts) => out(swc.process(src, file, opts)),
      processAsync: async (src, file, opts) => out(await swc.processAsync(src, file, opts)),
      getCacheKey: (src, file, opts) => `${swc.getCacheKey(src, file, opts)}:${SALT}`,
    };
  },
};
