/**
 * Tasks for the bounded-thread tests (test/lib/bounded-parse.test.ts), loaded by the thread
 * itself: plain TypeScript that Node runs natively, as src does.
 */

/** Bytes of `size`, each `value`, with the size reported beside them. */
export function fill(size: number, value: number): { size: number; bytes: Uint8Array } {
  return { size, bytes: new Uint8Array(size).fill(value) };
}

/** Keeps allocating small objects until the heap limit stops the thread. */
export function exhaustHeap(): number {
  const kept: { text: string; list: number[] }[] = [];
  for (;;) kept.push({ text: `entry ${kept.length} ${Math.random()}`, list: [kept.length, 1, 2, 3] });
}

/** Never returns. */
export function spin(): number {
  let n = 0;
  for (;;) n = (n + 1) % 1_000_003;
}

/** Throws an error with a code, as the parsers of the import do. */
export function refuse(code: string): never {
  throw Object.assign(new Error(`refused with ${code}`), { code });
}

/** What the thread sees of the environment variable `name`. */
export function environment(name: string): string | null {
  return process.env[name] ?? null;
}
