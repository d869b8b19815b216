import vm from 'node:vm';

// The transform every spec runs through (scripts/jest-transform.js): @swc/jest's output with the
// numeric built-ins bound once per module, the module still strict, and the same objects.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createTransformer } = require('../../jest-transform.js') as {
  createTransformer: (o: unknown) => { process: (src: string, file: string, opts: unknown) => { code: string } };
};

const transformer = createTransformer({ jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
const opts = { config: { cwd: __dirname }, cacheFS: new Map(), transformerConfig: {} };

/** Runs a transformed module in a vm context of its own, as Jest does; returns its exports and the context. */
function load(src: string): Record<string, unknown> & { context: vm.Context } {
  const { code } = transformer.process(src, '/virtual/module.ts', opts);
  const context = vm.createContext({});
  const module = { exports: {} as Record<string, unknown> };
  vm.runInContext(`(function (exports, module) {${code}\n})`, context)(module.exports, module);
  return { ...module.exports, context };
}

describe("Jest's transform", () => {
  it('binds Math, Number, Infinity and the typed arrays to the context’s own objects, and keeps the module strict', () => {
    const m = load(`
      // A comment before the directive, as swc writes one.
      export const builtins = () => [Math, Number, Infinity, Float32Array, globalThis.Math, globalThis.Float32Array];
      export const strict = () => (function (this: unknown) { return this === undefined; })();
      export const abs = (xs: number[]) => xs.map((x) => Math.abs(x));
    `);
    const [math, number, infinity, f32, globalMath, globalF32] = (m.builtins as () => unknown[])();
    expect([math === globalMath, f32 === globalF32, infinity, typeof number]).toEqual([true, true, Infinity, 'function']);
    expect((m.strict as () => boolean)()).toBe(true);
    expect((m.abs as (xs: number[]) => number[])([-2, 3])).toEqual([2, 3]);
    // Read once, when the module loads: a global replaced later is not what the module's code reads.
    vm.runInContext('globalThis.Math = { abs: () => 42 }', m.context);
    expect((m.abs as (xs: number[]) => number[])([-2, 3])).toEqual([2, 3]);
  });

  it('leaves a module that declares nothing of its own working, with or without a directive', () => {
    expect(load('export const x = Number.isFinite(1 / 0);').x).toBe(false);
    const { code } = transformer.process('export const y = 1;', '/virtual/other.ts', opts);
    // The directive still opens the code (after swc's own comments), so it still makes the module strict.
    expect(code.trimStart().startsWith('"use strict"')).toBe(true);
  });

  it('leaves out a name the module declares itself, and binds the rest', () => {
    const m = load('export function isNaN(x: number) { return x !== x; }\nexport const both = () => [isNaN(NaN), Math.abs(-3)];');
    expect((m.both as () => unknown[])()).toEqual([true, 3]);
  });

  it('keeps a script’s #! line first (Jest strips it; anything before it would not parse)', () => {
    const { code } = transformer.process('#!/usr/bin/env node\nexport const z = Math.max(1, 2);\n', '/virtual/cli.ts', opts);
    expect(code.startsWith('#!/usr/bin/env node\n')).toBe(true);
    const m = { exports: {} as Record<string, unknown> };
    vm.runInContext(`(function (exports, module) {${code.replace(/^#![^\n]*\n/, '')}\n})`, vm.createContext({}))(m.exports, m);
    expect(m.exports.z).toBe(2);
  });
});
