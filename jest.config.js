/** Jest runs TypeScript as native ES modules (see scripts/test.ts for the flags). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
      },
    ],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Every successful answer an in-process API gives is checked against GitBook's schema of its operation.
  setupFilesAfterEnv: ['<rootDir>/test/support/answer-check-setup.ts'],
  // Many tests wait on workflows that one shared worker runs for the whole suite: on a loaded 2-core
  // machine a test driving several jobs in turn can need minutes.
  testTimeout: 180_000,
  maxWorkers: 2,
  // A test worker runs many files in turn, and what a file leaves in the process outside Jest's module
  // registry adds up (a worker once reached its 3.4 GB heap limit well into a run): a worker using
  // more than this once a file is done is replaced by a fresh one.
  workerIdleMemoryLimit: '1536MB',
};
