// ESLint flat config: typescript-eslint's recommended rules over every workspace.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

// Services never reach into each other: no import of another service's package or folder. The
// engine (packages/engine), the kit and the contracts (proto) are the shared packages.
const SERVICES = ['gateway', 'identity', 'billing', 'media-library', 'assembly-orchestrator', 'render-worker', 'marketplace', 'telemetry'];
const boundaryPatterns = (own) =>
  SERVICES.filter((s) => s !== own).flatMap((s) => [
    { group: [`@reelsmith/${s}`, `@reelsmith/${s}/*`], message: 'Call another service over gRPC or NATS; never import it.' },
    { regex: `(^|/)(services/)?${s}/(src|test)(/|$)`, message: "Never import another service's files." },
  ]);
const serviceBoundary = (own) => ({
  files: own ? [`services/${own}/**/*.ts`] : ['packages/**/*.ts', 'proto/**/*.ts', 'services/kit/**/*.ts', 'web/**/*.ts', 'web/**/*.tsx'],
  rules: { 'no-restricted-imports': ['error', { patterns: boundaryPatterns(own) }] },
});
// A route file maps HTTP to a call: what several routes share lives in domain/ or in a non-route
// transport module (schemas), never in another route file. (Flat config replaces a rule's options
// per file, so each service's boundary is repeated here.)
const routeBoundary = (own) => ({
  files: [`services/${own}/src/transport/**/*.routes.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...boundaryPatterns(own),
          {
            regex: '\\.routes(\\.js)?$',
            message: 'Route files never import each other: move the shared part to domain/ or a schemas module.',
          },
        ],
      },
    ],
  },
});

// web/src is layered, top to bottom: shell (router, layout, user menu) -> pages -> features ->
// components -> base (the API client, store, session, formats) -> api (the generated API types).
// No file imports a layer above its own, with a static import or a dynamic import(). A feature is
// used from outside only through its index.ts (`../auth`, never `../auth/AuthModal`), stylesheets
// excepted; a dynamic import() may name a file inside a feature, because that file is then its own
// chunk on purpose (the router's pages, Home's plan studio).
// (These configurations repeat the service patterns: a later no-restricted-imports replaces an
// earlier one for the same files.)
const WEB = 'web/src';
const WEB_LAYERS = ['shell', 'pages', 'features', 'components', 'base', 'api'];
const unlayered = fs
  .readdirSync(path.join(__dirname, WEB), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !WEB_LAYERS.includes(d.name))
  .map((d) => d.name);
if (unlayered.length) throw new Error(`eslint.config.js: place the web folder(s) ${unlayered.join(', ')} in WEB_LAYERS`);
const FEATURES = fs.readdirSync(path.join(__dirname, WEB, 'features'), { withFileTypes: true }).filter((d) => d.isDirectory());
const NOT_CSS = '(?!.*\\.css$)';
const viaIndex = { message: 'Use a feature through its index.ts: import from its folder, not a file inside it.' };
/** The layers above `own`, as a pattern for a file `depth` folders below web/src. */
const noUpward = (own, depth) => {
  const above = WEB_LAYERS.slice(0, WEB_LAYERS.indexOf(own));
  return above.length
    ? [
        {
          regex: `^(\\.\\./){${depth}}(${above.join('|')})(/|$)`,
          message: `web/src is layered ${WEB_LAYERS.join(' -> ')}: ${own} never imports a layer above it.`,
        },
      ]
    : [];
};
// no-restricted-imports does not look at import() expressions: this rule applies the same patterns
// to them, and refuses an import() whose path is not a plain string (it could not be checked).
const dynamicImports = {
  meta: { type: 'problem', schema: [{ type: 'array' }] },
  create: (context) => ({
    ImportExpression(node) {
      const src = node.source;
      const value =
        src.type === 'Literal' ? src.value : src.type === 'TemplateLiteral' && !src.expressions.length ? src.quasis[0].value.cooked : null;
      if (typeof value !== 'string') {
        context.report({ node, message: 'import() takes a plain string path, so that the layer rules can check it.' });
        return;
      }
      const hit = (context.options[0] ?? []).find((p) => new RegExp(p.regex).test(value));
      if (hit) context.report({ node, message: hit.message });
    },
  }),
};
const webBoundary = (files, layerPatterns, indexPatterns = []) => ({
  files: files.flatMap((f) => [`${WEB}/${f}.ts`, `${WEB}/${f}.tsx`]),
  plugins: { reelsmith: { rules: { 'dynamic-imports': dynamicImports } } },
  rules: {
    'no-restricted-imports': ['error', { patterns: [...boundaryPatterns(null), ...layerPatterns, ...indexPatterns] }],
    'reelsmith/dynamic-imports': ['error', layerPatterns],
  },
});
// Features import each other without loops: each may import only the features listed before it
// here (a loop would need one import back up the list), with import() as with a static import. A
// new feature folder must be placed in it.
const FEATURE_ORDER = [
  'auth',
  'public',
  'marketplace',
  'settings',
  'library',
  'payments',
  'pricing',
  'assembly',
  'studio',
  'admin',
  'reels',
  'developers',
];
const unplaced = FEATURES.map((f) => f.name).filter((f) => !FEATURE_ORDER.includes(f));
if (unplaced.length) throw new Error(`eslint.config.js: place the web feature(s) ${unplaced.join(', ')} in FEATURE_ORDER`);
const laterFeatures = (own) => FEATURE_ORDER.slice(FEATURE_ORDER.indexOf(own) + 1);
const noLoop = (own) =>
  laterFeatures(own).length
    ? [
        {
          regex: `^\\.\\./(${laterFeatures(own).join('|')})(/|$)`,
          message: `Features import each other without loops: ${own} may import only the features before it in FEATURE_ORDER (eslint.config.js).`,
        },
      ]
    : [];
const webLayers = [
  webBoundary(['main', 'shell/**/*'], [], [{ regex: `^\\.\\.?/features/[^/]+/${NOT_CSS}`, ...viaIndex }]),
  webBoundary(['pages/**/*'], noUpward('pages', 1), [{ regex: `^\\.\\./features/[^/]+/${NOT_CSS}`, ...viaIndex }]),
  ...FEATURES.map((f) =>
    webBoundary(
      [`features/${f.name}/**/*`],
      [...noUpward('features', 2), ...noLoop(f.name)],
      [{ regex: `^\\.\\./(?!${f.name}/)[a-z-]+/${NOT_CSS}`, ...viaIndex }],
    ),
  ),
  ...['components', 'base', 'api'].map((layer) => webBoundary([`${layer}/**/*`], noUpward(layer, 1))),
];

module.exports = tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      'proto/src/gen/**',
      'web/src/api/schema.gen.ts',
      'packages/sdk/src/schema.gen.ts',
      'web/dist/**',
      'test-artifacts/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // k6 scripts run inside k6, as ES modules with k6's globals.
    files: ['deploy/k6/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { __ENV: 'readonly', __VU: 'readonly', __ITER: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration in config.ts only.' }],
    },
  },
  ...SERVICES.map(serviceBoundary),
  serviceBoundary(null),
  ...SERVICES.map(routeBoundary),
  ...webLayers,
  {
    // The engine has no import circle (type-only imports count too), so it reads top-down.
    files: ['packages/engine/src/**/*.ts'],
    plugins: { 'reelsmith-imports': { rules: { 'no-cycle': require('./tools/eslint/no-import-cycle.js') } } },
    rules: { 'reelsmith-imports/no-cycle': 'error' },
  },
  {
    // The places allowed to read the environment: config files, the supervisor, test helpers, tests.
    files: ['**/config.ts', 'scripts/**', '**/testing.ts', '**/test/**', 'test/**', '*.js', 'proto/gen.js', 'web/vite.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
