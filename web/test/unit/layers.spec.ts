import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Case {
  file: string;
  code: string;
}

/** The rules each snippet breaks under the repository's eslint.config.js, linted as if it were `file`. */
function brokenRules(cases: Case[]): string[][] {
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

describe('web/src layers (eslint.config.js)', () => {
  it('refuses an import from a lower layer to a higher one, static or import(), and a feature loop hidden in import()', () => {
    const cases: Case[] = [
      // A loop: assembly comes before studio in FEATURE_ORDER.
      { file: 'web/src/features/assembly/Loop.tsx', code: "export const l = () => import('../studio/PlanStudio');\n" },
      { file: 'web/src/features/studio/Fine.tsx', code: "export const l = () => import('../assembly/tray');\n" },
      // Layers: shell -> pages -> features -> components -> base -> api.
      { file: 'web/src/components/Up.tsx', code: "export const l = () => import('../shell/router');\n" },
      { file: 'web/src/components/Down.tsx', code: "import { api } from '../base/api';\nexport const a = api;\n" },
      { file: 'web/src/base/Up.ts', code: "import { useCurrentUser } from '../features/auth';\nexport const u = useCurrentUser;\n" },
      { file: 'web/src/features/auth/Up.ts', code: "import { AppRoutes } from '../../shell/router';\nexport const r = AppRoutes;\n" },
      { file: 'web/src/features/auth/UpLazy.ts', code: "export const l = () => import('../../pages/HomePage');\n" },
      // A file inside a feature: as its own chunk only.
      { file: 'web/src/pages/Chunk.tsx', code: "export const l = () => import('../features/studio/PlanStudio');\n" },
      {
        file: 'web/src/pages/Deep.tsx',
        code: "import { PlanStudio } from '../features/studio/PlanStudio';\nexport const p = PlanStudio;\n",
      },
      // A path the rule cannot read.
      { file: 'web/src/features/auth/Computed.ts', code: "const name = 'x';\nexport const l = () => import(name);\n" },
    ];
    expect(brokenRules(cases)).toEqual([
      ['reelsmith/dynamic-imports'],
      [],
      ['reelsmith/dynamic-imports'],
      [],
      ['no-restricted-imports'],
      ['no-restricted-imports'],
      ['reelsmith/dynamic-imports'],
      [],
      ['no-restricted-imports'],
      ['reelsmith/dynamic-imports'],
    ]);
  }, 60_000);
});
