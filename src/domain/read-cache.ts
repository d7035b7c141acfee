import { SizedLru } from './lru.ts';

/**
 * Writes this process knows of: each commit of its own (src/db counts them as they complete) and
 * each one the database announces from any process (src/db/change-feed.ts). A read remembered
 * while this count was N holds only while it still is N: any write since may have changed it.
 */
let writes = 0;

/** Counts one write: every answer remembered before it stops holding. */
export function noteWrite(): void {
  writes++;
}

/** The writes counted so far (noteWrite). */
export const writesSeen = (): number => writes;

/** When a read began: the writes counted then, and the time. */
export interface ReadTicket {
  writes: number;
  at: number;
}

interface Remembered<V> {
  writes: number;
  at: number;
  value: V;
}

/**
 * Answers remembered between writes. An answer is kept only if no write was counted while it was
 * being read (its ticket's count is still the current one), and served only while that stays so,
 * for at most `maxAgeMs` from when its read began (0: nothing is kept). It needs the database's
 * announcements of other processes' writes: until `setLive(true)` (the announcements are heard)
 * and whenever they are not (`setLive(false)`), nothing is kept or served. Bounded by bytes, as
 * every cache of a process (SizedLru).
 */
export class ReadCache<V extends NonNullable<unknown>> {
  readonly #entries: SizedLru<string, Remembered<V>>;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #live = false;
  #caughtUp: () => Promise<boolean> = async () => false;
  #served = 0;
  #missed = 0;

  constructor(maxBytes: number, sizeOf: (value: V, key: string) => number, maxAgeMs: number, now: () => number = Date.now) {
    this.#entries = new SizedLru<string, Remembered<V>>(maxBytes, (entry, key) => sizeOf(entry.value, key) + 64);
    this.#maxAgeMs = maxAgeMs;
    this.#now = now;
  }

  /**
   * How to catch up with the writes other processes committed (the change feed's `caughtUp`):
   * `current` serves a kept answer only once every write committed before it was asked has been
   * heard, so a client that wrote through another process reads its write here too.
   */
  catchUpWith(caughtUp: () => Promise<boolean>): void {
    this.#caughtUp = caughtUp;
  }

  /**
   * The answer kept for `key`, if it still holds once every write committed anywhere before this
   * call has been counted (`catchUpWith`, or `caughtUp`: a request's own, asked once and shared by
   * every answer it reads); undefined otherwise, and when that cannot be known.
   */
  async current(key: string, caughtUp: () => Promise<boolean> = this.#caughtUp): Promise<V | undefined> {
    if (!this.#live || !this.#entries.has(key)) {
      this.#missed++;
      return undefined;
    }
    const value = (await caughtUp()) ? this.get(key) : undefined;
    if (value === undefined) this.#missed++;
    else this.#served++;
    return value;
  }

  /** Answers served from what was kept (`current`), and asked for and not served. */
  get stats(): { served: number; missed: number } {
    return { served: this.#served, missed: this.#missed };
  }

  /** Whether other processes' writes are being heard; each change also counts as a write. */
  setLive(live: boolean): void {
    noteWrite();
    this.#live = live;
    if (!live) this.#entries.clear();
  }

  get live(): boolean {
    return this.#live;
  }

  /** Taken before a read whose answer may be kept (`set`); undefined when nothing can be kept now. */
  ticket(): ReadTicket | undefined {
    return this.#live && this.#maxAgeMs > 0 ? { writes, at: this.#now() } : undefined;
  }

  /**
   * The answer kept for `key`, if it still holds with the writes counted so far. Only for an answer
   * that must agree with this process's own writes alone; one that a client may have changed through
   * another process is read with `current`.
   */
  get(key: string): V | undefined {
    if (!this.#live) return undefined;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.writes === writes && this.#now() - entry.at < this.#maxAgeMs) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Keeps `value`, read since `ticket` was taken, unless a write was counted since then. */
  set(key: string, ticket: ReadTicket | undefined, value: V): void {
    if (!ticket || !this.#live || ticket.writes !== writes) return;
    this.#entries.set(key, { writes: ticket.writes, at: ticket.at, value });
  }

  /** Entries kept, including ones a later write has made stale and that have not been looked up since. */
  get size(): number {
    return this.#entries.size;
  }
}
