import { AsyncLocalStorage } from 'node:async_hooks';
import { noteWrite } from '../domain/read-cache.ts';

/** Set while statements run whose writes no kept answer depends on (withoutCountingWrites). */
const uncounted = new AsyncLocalStorage<true>();

/**
 * Runs `work` with its statements left out of the count: for writes to tables no kept answer ever
 * reads (site insights events and their rollups, src/db/insights.ts), so a stream of them does not
 * make every reader's kept answer be read again. Whether a statement counts is decided when it is
 * sent, in the context of the code that sends it; its transaction's COMMIT is sent within `work` too.
 */
export function withoutCountingWrites<T>(work: () => Promise<T>): Promise<T> {
  return uncounted.run(true, work);
}

/** What a completed statement reports: its command tag (`SELECT`, `INSERT`, `COMMIT`, …), one per statement sent together. */
type Completed = { command?: string | null } | { command?: string | null }[] | undefined;

/** Command tags of statements that write nothing: a plain read, a session setting (src/db/orm.ts sets one per connection). */
const NO_WRITE = new Set(['SELECT', 'SET']);

/** Whether a completed statement may have committed a write: anything but a plain read or setting (a failure counts, to be safe). */
function mayHaveWritten(result: Completed, failed: unknown): boolean {
  if (failed) return true;
  const results = Array.isArray(result) ? result : [result];
  return results.some((one) => !NO_WRITE.has(one?.command ?? ''));
}

/**
 * Counts, on one pooled connection of the ORM, each statement it completes that may have written
 * (domain/read-cache.ts `noteWrite`), once the database has answered it: a statement outside a
 * transaction has committed by then, and a transaction's writes are counted again at its COMMIT.
 * Every way this process reaches the database goes through these connections (the entity manager,
 * `db(em)` on the pool or in a transaction, prepared statements), so an answer kept before one of
 * its own writes is never served after that write's response. Statements are passed on unchanged,
 * with their callbacks and promises; only the completion is observed.
 */
export function countWrites(client: object): void {
  const connection = client as { query: (...args: unknown[]) => unknown };
  const query = connection.query;
  connection.query = function countedQuery(this: unknown, ...args: unknown[]) {
    if (uncounted.getStore()) return query.apply(this, args);
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = function counted(this: unknown, failed: unknown, result: Completed, ...rest: unknown[]) {
        if (mayHaveWritten(result, failed)) noteWrite();
        return callback.call(this, failed, result, ...rest);
      };
      return query.apply(this, args);
    }
    const pending = query.apply(this, args);
    if (pending instanceof Promise) {
      pending.then(
        (result: Completed) => mayHaveWritten(result, undefined) && noteWrite(),
        () => noteWrite(),
      );
    }
    return pending;
  };
}
