import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** The rules each snippet breaks under the repository's eslint.config.js, linted as if it were `file` (the rest read from disk). */
function brokenRules(cases: Array<{ file: string; code: string }>): string[][] {
  // ESLint loads its config with import(), which Jest's module system cannot run: lint in a child.
  const script = `
    const { ESLint } = require('eslint');
    (async () => {
      const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
      const out = [];
      for (const c of JSON.parse(process.argv[1])) {
        const [result] = await eslint.lintText(c.code, { filePath: ${JSON.stringify(ROOT)} + '/' + c.file });
        out.push(result.messages.map((m) => m.ruleId ?? m.message));
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(cases)], { cwd: ROOT, encoding: 'utf8' }));
}

describe('the engine has no import circle (eslint.config.js, tools/eslint/no-import-cycle.js)', () => {
  it('refuses an import that leads back to the importing file, type-only or not, and lets a one-way import pass', () => {
    // beat-harmony.ts imports beat-peaks.ts, and beat-envelopes.ts imports beat-harmony.ts.
    expect(
      brokenRules([
        {
          file: 'packages/engine/src/beat-peaks.ts',
          code: "import { harmonicChange } from './beat-harmony.js';\nexport const h = harmonicChange;\n",
        },
        {
          file: 'packages/engine/src/beat-peaks.ts',
          code: "import type { Envelope } from './beat-envelopes.js';\nexport type E = Envelope;\n",
        },
        {
          file: 'packages/engine/src/beat-peaks.ts',
          code: "export { bracket } from './numeric.js';\n",
        },
      ]),
    ).toEqual([['reelsmith-imports/no-cycle'], ['reelsmith-imports/no-cycle'], []]);
  }, 60_000);
});
