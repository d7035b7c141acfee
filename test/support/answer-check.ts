/**
 * Every answer the suite provokes from an in-process API (test/support/harness.ts) is checked
 * against the schema GitBook's OpenAPI document gives its operation (found by method and path):
 * a successful JSON answer that does not match is recorded, and the test that provoked it fails
 * after it ends (answer-check-setup.ts), naming the operation and what does not match. Answers of
 * routes GitBook does not have, and the operations test/support/gitbook-exceptions.ts lists, are
 * not checked against it.
 */
import { appendFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect } from '@jest/globals';
import type { SentAnswer } from '../../src/api/app.ts';
import { UNCHECKED_OPERATIONS } from './gitbook-exceptions.ts';
import { operationFor, operations, responseValidator } from './gitbook-openapi.ts';

export interface Mismatch {
  operationId: string;
  method: string;
  url: string;
  status: number;
  errors: string[];
}

/**
 * Where mismatches wait for the end of their test: on the test file's global object, which
 * answer-check-setup.ts reads without loading GitBook's document into files that never answer.
 */
export const MISMATCHES = Symbol.for('docs-service.answer-mismatches');
const store = globalThis as { [MISMATCHES]?: Mismatch[] };
const mismatches: Mismatch[] = (store[MISMATCHES] ??= []);
/** Operations whose answers were checked in this file, and how many times (for the report). */
export const checked = new Map<string, number>();

/** The answer's JSON body, or undefined when it is not JSON (a file, a redirect, a stream, nothing). */
function jsonBody(answer: SentAnswer): unknown {
  const type = String(answer.headers['content-type'] ?? '');
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) return undefined;
  const payload = answer.payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const gzipped = Buffer.isBuffer(payload) && /gzip/i.test(String(answer.headers['content-encoding'] ?? ''));
  const text = gzipped ? gunzipSync(payload).toString() : payload.toString();
  if (text === '') return undefined;
  return JSON.parse(text);
}

/** Checks one answer (AppOptions.onAnswer): successful JSON answers of GitBook's operations only. */
export function checkAnswer(answer: SentAnswer): void {
  if (answer.status < 200 || answer.status >= 300) return;
  const operationId = operationFor(answer.method, answer.url);
  if (operationId === undefined || operationId in UNCHECKED_OPERATIONS) return;
  const declared = operations.get(operationId)!.responses;
  if (!declared.includes(String(answer.status)) && !declared.includes('2XX') && !declared.includes('default')) {
    record({
      operationId,
      method: answer.method,
      url: answer.url,
      status: answer.status,
      errors: [`GitBook answers ${declared.filter((code) => code.startsWith('2')).join(', ')}, not ${answer.status}`],
    });
    return;
  }
  const body = jsonBody(answer);
  const { valid, errors } = responseValidator(operationId, answer.status)(body);
  const report = process.env.ANSWER_CHECK_REPORT;
  if (report && !checked.has(operationId)) appendFileSync(report, JSON.stringify({ checked: operationId }) + '\n');
  checked.set(operationId, (checked.get(operationId) ?? 0) + 1);
  if (!valid) record({ operationId, method: answer.method, url: answer.url, status: answer.status, errors });
}

/**
 * A mismatch fails its test; with ANSWER_CHECK_REPORT set to a file, it is appended there as a
 * JSON line instead (to survey a whole run at once), as is each operation checked (once a file).
 */
function record(mismatch: Mismatch): void {
  const report = process.env.ANSWER_CHECK_REPORT;
  if (report) appendFileSync(report, JSON.stringify({ ...mismatch, test: expect.getState().currentTestName }) + '\n');
  else mismatches.push(mismatch);
}

/** The mismatches recorded since the last call, which forgets them. */
export function takeMismatches(): Mismatch[] {
  return mismatches.splice(0, mismatches.length);
}

/** A report of mismatches, for a test's failure. */
export function describeMismatches(found: Mismatch[]): string {
  return (
    `${found.length} answer(s) do not match GitBook's schema of their operation ` +
    `(test/support/answer-check.ts; exceptions are listed in test/support/gitbook-exceptions.ts):\n` +
    found
      .slice(0, 10)
      .map(
        (m) =>
          `- ${m.operationId}: ${m.method} ${m.url.slice(0, 200)} → ${m.status}\n` +
          m.errors
            .slice(0, 12)
            .map((e) => `    ${e}`)
            .join('\n'),
      )
      .join('\n')
  );
}
