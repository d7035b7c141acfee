/**
 * Fails a test after it ends when an answer it provoked did not match GitBook's schema of its
 * operation (test/support/answer-check.ts records them). Loaded by Jest for every test file.
 */
import { afterEach } from '@jest/globals';

interface Mismatch {
  operationId: string;
  method: string;
  url: string;
  status: number;
  errors: string[];
}

const MISMATCHES = Symbol.for('docs-service.answer-mismatches');

afterEach(async () => {
  const found = (globalThis as { [MISMATCHES]?: Mismatch[] })[MISMATCHES];
  if (!found || found.length === 0) return;
  const { describeMismatches, takeMismatches } = await import('./answer-check.ts');
  throw new Error(describeMismatches(takeMismatches()));
});
