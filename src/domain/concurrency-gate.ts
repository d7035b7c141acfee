/**
 * Work in flight per key, up to a bound: `enter` admits one more unit of `key`'s work unless
 * `max` are running already (0: no bound), and the admitted caller calls `leave` once done.
 * Synchronous and in memory: counts are per process; a key with nothing in flight is forgotten.
 */
export class ConcurrencyGate {
  readonly #running = new Map<string, number>();

  enter(key: string, max: number): boolean {
    const running = this.#running.get(key) ?? 0;
    if (max > 0 && running >= max) return false;
    this.#running.set(key, running + 1);
    return true;
  }

  leave(key: string): void {
    const running = (this.#running.get(key) ?? 0) - 1;
    if (running > 0) this.#running.set(key, running);
    else this.#running.delete(key);
  }

  /** Units of `key`'s work in flight. */
  running(key: string): number {
    return this.#running.get(key) ?? 0;
  }

  /** Runs `work` if admitted (its answer), else answers undefined without running it. */
  async within<T>(key: string, max: number, work: () => Promise<T>): Promise<T | undefined> {
    if (!this.enter(key, max)) return undefined;
    try {
      return await work();
    } finally {
      this.leave(key);
    }
  }
}
