/**
 * A map of at most `max` entries that forgets the least recently used one first. Every cache an
 * API or worker process keeps for itself is one of these, so none grows with the data or the
 * traffic (the README's "Scaling" section lists them with their sizes). `onDrop` hears of each
 * entry that leaves, whether evicted, replaced, deleted or cleared, for caches whose values hold
 * something to release elsewhere (a schema compiled into an Ajv instance).
 */
export class Lru<K, V> {
  readonly max: number;
  readonly #entries = new Map<K, V>();
  readonly #onDrop: ((key: K, value: V) => void) | undefined;

  constructor(max: number, onDrop?: (key: K, value: V) => void) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`An LRU cache holds at least one entry (got ${max})`);
    this.max = max;
    this.#onDrop = onDrop;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, which becomes the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key)!;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Stores the value as the most recently used, evicting the least recently used entries beyond `max`. */
  set(key: K, value: V): this {
    if (this.#entries.has(key)) {
      const previous = this.#entries.get(key)!;
      this.#entries.delete(key);
      if (previous !== value) this.#onDrop?.(key, previous);
    }
    this.#entries.set(key, value);
    while (this.#entries.size > this.max) {
      const [oldest, dropped] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#onDrop?.(oldest, dropped);
    }
    return this;
  }

  delete(key: K): boolean {
    if (!this.#entries.has(key)) return false;
    const value = this.#entries.get(key)!;
    this.#entries.delete(key);
    this.#onDrop?.(key, value);
    return true;
  }

  clear(): void {
    const dropped = [...this.#entries];
    this.#entries.clear();
    if (this.#onDrop) for (const [key, value] of dropped) this.#onDrop(key, value);
  }
}
