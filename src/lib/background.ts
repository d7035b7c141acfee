/**
 * Work a process starts on a request's behalf and does not wait for before answering (the signal
 * that hands a recorded Git Sync request to its workflow): kept here so that closing the process
 * waits for it instead of cutting it off. Each task handles its own failure; one that throws
 * anyway is dropped here, never left unhandled.
 */
export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>();

  run(task: () => Promise<unknown>): void {
    const running: Promise<void> = task()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  /** Tasks still running. */
  get size(): number {
    return this.#running.size;
  }

  /** Resolves once every task started so far has ended. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
