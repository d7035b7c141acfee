/**
 * Work a process starts on a request's behalf and does not wait for before answering (the signal
 * that hands a recorded Git Sync request to its workflow): kept here so that closing the process
 * waits for it instead of cutting it off. Each task handles its own failure; one that throws
 * anyway is dropped here, never left unhandled. At most `max` run at once: the answers do not wait
 * for these tasks, so nothing else would bound them when what they wait for is slow.
 */
export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** Starts the task; false (and nothing started) when `max` tasks are running already. */
  run(task: () => Promise<unknown>): boolean {
    if (this.#running.size >= this.#max) return false;
    const running: Promise<void> = task()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
    return true;
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
