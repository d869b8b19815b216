// Test projects: unit (fast, no I/O beyond temp files), medium (real PostgreSQL, PGlite, NATS,
// S3 via s3rver), e2e (the whole system as `npm start` runs it) and browser (Chromium).
'use strict';

// @swc/jest with each module's own binding of the numeric built-ins (scripts/jest-transform.js:
// a global read in Jest's vm context is many times slower than in Node).
const swc = [
  '<rootDir>/scripts/jest-transform.js',
  {
    jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022', transform: { react: { runtime: 'automatic' } } },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': swc },
  moduleNameMapper: {
    '^@reelsmith/kit$': '<rootDir>/services/kit/src/index.ts',
    '^@reelsmith/kit/testing$': '<rootDir>/services/kit/src/testing.ts',
    '^@reelsmith/proto$': '<rootDir>/proto/src/index.ts',
    '^@reelsmith/engine$': '<rootDir>/packages/engine/src/index.ts',
    '^@reelsmith/engine/plan$': '<rootDir>/packages/engine/src/planning.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/data/', '/dist/'],
};

const sharedProduct = {
  globalSetup: '<rootDir>/test/support/shared-setup.ts',
  globalTeardown: '<rootDir>/test/support/shared-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/product-timeout.ts'],
};

module.exports = {
  testTimeout: 30_000,
  // A worker asked to stop (its last file done) empties its event loop at once, but Node then frees
  // its heap (500-600 MB after the unit project's files, measured 2026-12-03) before the process
  // ends: 350-550 ms, past Jest's 500 ms, after which it kills the worker and warns of a leak that
  // is not there. A worker that truly leaks a handle still never stops on its own and is warned of
  // after this.
  workerGracefulExitTimeout: 3000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{packages,services,scripts,proto,web}/**/test/unit/**/*.spec.ts?(x)'] },
    {
      ...common,
      displayName: 'medium',
      // Service tests, and in test/medium the ones that compose several services in one process.
      testMatch: ['<rootDir>/{packages,services,scripts,proto}/**/test/medium/**/*.spec.ts', '<rootDir>/test/medium/**/*.spec.ts'],
    },
    // One product shared by the e2e and browser specs that can share it, started by the first that
    // asks (test/support/shared-system.ts) and stopped after the run's last spec.
    { ...common, ...sharedProduct, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.spec.ts'] },
    { ...common, ...sharedProduct, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.spec.ts'] },
  ],
};
