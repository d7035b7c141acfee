/**
 * A stopwatch of laps: each call returns the whole milliseconds since the previous call (or since
 * the stopwatch was made), for timing the phases of a job one after the other.
 */
export function lapTimer(): () => number {
  let mark = performance.now();
  return () => {
    const now = performance.now();
    const ms = Math.round(now - mark);
    mark = now;
    return ms;
  };
}
