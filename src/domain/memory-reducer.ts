/**
 * When an API process gives its unused heap pages back to the system. V8 keeps the pages a garbage
 * collection frees in a pool for later use and returns them only on a memory-reducing collection,
 * which its own heuristics start when the allocation rate is low; a process that was busy and then
 * goes quiet may keep its peak's pages for good. So the process runs one memory-reducing collection
 * itself once it has been idle for a while (no request in flight) after its resident size grew,
 * at most once per interval: off the request path, and never twice for the same growth. A large
 * request (a body of megabytes) leaves its buffers and strings behind: once it has ended, the
 * collection does not wait for the idle time, only for the requests in flight to end.
 */
export interface MemoryReducerPolicy {
  /** How long no request may have been in flight before a collection runs (ms). */
  idleMs: number;
  /** Least time between two collections (ms). */
  minIntervalMs: number;
  /** How much the resident size must have grown since the last collection left it (bytes). */
  growthBytes: number;
}

export interface MemoryReducerState {
  /** Requests started and not yet ended. */
  inFlight: number;
  /** When the last request started or ended (ms). */
  lastActivityAt: number;
  /** When the last collection ran (ms; the start of the process before the first). */
  lastReducedAt: number;
  /** The resident size the last collection left (bytes; the size at start before the first). */
  residentAfterLast: number;
  /** Whether a large request ended since the last collection. */
  largeRequestEnded: boolean;
}

/**
 * An API process's policy: a second without a request in flight (or none in flight after a large
 * one), 32 MB of growth, at most one collection every five seconds. Growth is what makes a collection worth its pause (about 100 to
 * 300 ms for an API heap of 100 MB on two cores; more when the machine is loaded); without new
 * growth an idle process is never collected twice.
 */
export const DEFAULT_MEMORY_REDUCER_POLICY: MemoryReducerPolicy = {
  idleMs: 1_000,
  minIntervalMs: 5_000,
  growthBytes: 32 * 2 ** 20,
};

/** Whether to run a memory-reducing collection now, given the resident size now (bytes). */
export function shouldReduceMemory(state: MemoryReducerState, residentBytes: number, now: number, policy: MemoryReducerPolicy): boolean {
  return (
    state.inFlight === 0 &&
    (state.largeRequestEnded || now - state.lastActivityAt >= policy.idleMs) &&
    now - state.lastReducedAt >= policy.minIntervalMs &&
    residentBytes - state.residentAfterLast >= policy.growthBytes
  );
}
