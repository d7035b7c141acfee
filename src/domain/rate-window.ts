import { LRUCache } from 'lru-cache';

/** Where a caller stands in its current window after one more request. */
export interface WindowCount {
  /** Requests the caller may make per window. */
  max: number;
  /** Requests left in the current window (never below 0). */
  remaining: number;
  /** Milliseconds until the current window ends and the count starts again. */
  resetMs: number;
  /** Whether this request is over the limit. */
  exceeded: boolean;
}

/**
 * Fixed-window request counts per caller: a caller's window starts with its first request and
 * lasts `windowMs`; past `max` requests in it, each further one is over the limit until it ends.
 * At most `callers` callers are remembered, the least recently seen forgotten first (a forgotten
 * caller starts counting again). Synchronous and in memory: counts are per process.
 */
export class RateWindows {
  readonly #counts: LRUCache<string, { count: number; startedAt: number }>;
  readonly windowMs: number;

  constructor(windowMs: number, callers: number) {
    this.windowMs = windowMs;
    this.#counts = new LRUCache({ max: callers });
  }

  /** Counts one request of `key` at `now` (ms), against `max` requests per window. */
  hit(key: string, max: number, now: number): WindowCount {
    let entry = this.#counts.get(key);
    if (!entry || entry.startedAt + this.windowMs <= now) {
      entry = { count: 1, startedAt: now };
      this.#counts.set(key, entry);
    } else {
      entry.count += 1;
    }
    return {
      max,
      remaining: Math.max(0, max - entry.count),
      resetMs: entry.startedAt + this.windowMs - now,
      exceeded: entry.count > max,
    };
  }
}

/** A duration as a sentence says it: "1 hour", "90 seconds", "15 minutes" (whole units, else seconds). */
export function spokenDuration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds % size === 0) return `${seconds / size} ${name}${seconds === size ? '' : 's'}`;
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
