// Jest's transform: @swc/jest, then each module's own binding of the numeric built-ins.
//
// Jest runs every test file in a vm context, whose global object is reached through V8's
// interceptors: a read of a global such as `Math`, `Number` or `Infinity` inside a hot loop
// costs about 35-50 times what it costs in plain Node (measured here: frameStats, the clip
// analysis' per-frame statistics, 0.7 ms a frame in Node and 36 ms under Jest). So a module's
// code reads them once, from a binding of its own, as it would be read in Node: the same
// objects (globalThis's), so behaviour does not change; only built-ins no test replaces are
// bound (not Date, the timers or Promise, which fake timers swap).
'use strict';
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
const BINDING = `const { ${BUILTINS.join(', ')} } = globalThis;`;
/** Changes with BINDING, so Jest's cache never serves a module transformed without it. */
const SALT = `jest-transform:${BINDING}`;

/**
 * The code with BINDING after its "use strict" directive (a directive must come first), on the same
 * line; without one, after a leading `#!` line (which must stay the first line), or first.
 */
function bind(code) {
  const shebang = /^#![^\n]*\n/.exec(code)?.[0] ?? '';
  const rest = code.slice(shebang.length);
  const m = /^(?:\s*(?:\/\/[^\n]*\n|\/\*[\s\S]*?\*\/))*\s*(["'])use strict\1;?/.exec(rest);
  const at = shebang.length + (m ? m[0].length : 0);
  return `${code.slice(0, at)}${m ? ' ' : ''}${BINDING}${m ? '' : ' '}${code.slice(at)}`;
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
