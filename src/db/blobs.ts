import { sql, type RawBuilder } from 'kysely';
import { db } from './kysely.ts';
import { initOrm, transaction, type Em, type Orm } from './orm.ts';

/**
 * The blob registry (Migration0033BlobRegistry) and its collection; the design and its safety
 * argument are in docs/operations.md, "Deleting blobs". In short:
 * - a writer registers a blob (row touched now, hash queued) and commits before it checks for and
 *   writes the object (`registerBlob`, called by the stores of src/lib/blob-store.ts);
 * - deleting or changing a reference queues its hash (triggers of the migration);
 * - a collection takes queued hashes past the grace and, one transaction each, locks the registry
 *   row, checks again that no writer touched it within the grace and that no row references it,
 *   deletes the object, then the row (`collectBlob`). A writer's upsert waits for that lock, finds
 *   the row gone, inserts it again and writes the object again.
 */

/** `now()` less `ms` milliseconds, in SQL. */
function ago(ms: number): RawBuilder<string> {
  return sql<string>`now() - ${ms} * interval '1 millisecond'`;
}

/**
 * Registers a blob about to be written: its hash queued, its row touched now (inserted if missing).
 * One statement, so one round trip and one commit, locking the candidate first as the collection
 * does (the row's upsert reads the candidate's, so runs after it), so neither waits for the other
 * in the opposite order: while a collection holds the candidate, this waits for it.
 */
export async function registerBlob(em: Em, sha256: string, size: number): Promise<void> {
  await db(em)
    .with('queued', (q) =>
      q
        .insertInto('blob_candidate')
        .values({ sha256, since: sql<Date>`now()` })
        .onConflict((oc) => oc.column('sha256').doUpdateSet({ since: sql<Date>`greatest(blob_candidate.since, excluded.since)` }))
        .returning('sha256'),
    )
    .insertInto('blob')
    .columns(['sha256', 'size', 'touched_at'])
    .expression((eb) =>
      eb.selectFrom('queued').select((e) => ['queued.sha256', e.val(String(size)).as('size'), sql<Date>`now()`.as('touched_at')]),
    )
    .onConflict((oc) =>
      oc.column('sha256').doUpdateSet({ touched_at: sql<Date>`now()`, size: sql<string>`coalesce(blob.size, excluded.size)` }),
    )
    .execute();
}

/** Where the stores register what they write: a pool of its own, so a registration commits on its own, whatever transaction the writer is in. */
export interface BlobRegistry {
  register(sha256: string, size: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The registry of a process, on its own small pool opened on first use: a writer inside a
 * transaction of the main pool never waits for a connection of that pool to register (a full pool
 * of such writers would otherwise wait for itself), and a registration is committed before the
 * object is written, as the collection's safety needs.
 */
export function blobRegistry(databaseUrl: string, poolMax = 4): BlobRegistry {
  let opened: Promise<Orm> | undefined;
  return {
    async register(sha256, size) {
      opened ??= initOrm({ databaseUrl, poolMax });
      await registerBlob((await opened).em.fork(), sha256, size);
    },
    async close() {
      const orm = opened;
      opened = undefined;
      if (orm) await (await orm).close();
    },
  };
}

/** Where a pass over the queue stands: the last candidate it looked at, in `(since, sha256)` order. */
export interface CandidateCursor {
  since: string;
  sha256: string;
}

/**
 * Queued hashes whose `since` is older than the grace, oldest first, after `after` (a pass goes
 * over the queue once: a candidate left in place, such as a busy one, waits for the next pass).
 */
export async function dueBlobCandidates(em: Em, graceMs: number, limit: number, after?: CandidateCursor): Promise<CandidateCursor[]> {
  return db(em)
    .selectFrom('blob_candidate')
    .select(['since', 'sha256'])
    .where('since', '<', ago(graceMs))
    .$if(after !== undefined, (qb) =>
      qb.where((eb) => eb(eb.refTuple('since', 'sha256'), '>', eb.tuple(sql<string>`${after!.since}::timestamptz`, after!.sha256))),
    )
    .orderBy('since')
    .orderBy('sha256')
    .limit(limit)
    .execute();
}

/** How many queued hashes are past the grace (what a collection has left to look at). */
export async function dueBlobCount(em: Em, graceMs: number): Promise<number> {
  const row = await db(em)
    .selectFrom('blob_candidate')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('since', '<', ago(graceMs))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What the collection did with one queued hash. */
export type BlobOutcome =
  /** Object and row deleted. */
  | 'collected'
  /** A row references it: kept, taken off the queue (deleting that reference queues it again). */
  | 'referenced'
  /** A writer touched it within the grace: kept, looked at again once the grace has passed. */
  | 'recent'
  /** Another transaction holds it (a writer registering it, or another collection): left for the next round. */
  | 'busy'
  /** In the store without a registry row (written before the registry existed, or by a restore): registered now, looked at again after the grace. */
  | 'adopted';

/**
 * Collects one queued blob if nothing needs it, in one transaction: the candidate and the registry
 * row locked (`skip locked`: a busy one waits for the next round), the row touched longer ago than
 * the grace, no reference in `revision_file`, `pdf_export` or `space_pdf_export`; then
 * `removeObject` deletes the object while the row is still locked, and the row goes with the commit.
 * If `removeObject` throws, nothing changes in the database and the next round tries again.
 */
export async function collectBlob(
  em: Em,
  sha256: string,
  graceMs: number,
  removeObject: (sha256: string) => Promise<void>,
): Promise<BlobOutcome> {
  return transaction(em, async (tx) => {
    const q = db(tx);
    // The candidate first: a writer registering the blob holds it until it commits (`registerBlob`).
    const candidate = await q
      .selectFrom('blob_candidate')
      .select('since')
      .where('sha256', '=', sha256)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!candidate) return 'busy';
    const row = await q
      .selectFrom('blob')
      .select((eb) => ['touched_at', eb('touched_at', '<', ago(graceMs)).as('old')])
      .where('sha256', '=', sha256)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!row) {
      const held = await q.selectFrom('blob').select('sha256').where('sha256', '=', sha256).executeTakeFirst();
      if (held) return 'busy';
      // Not registered: register it now, so it is collected (if still unreferenced) one grace from now.
      await q
        .insertInto('blob')
        .values({ sha256, size: null, touched_at: sql<Date>`now()` })
        .onConflict((oc) => oc.column('sha256').doNothing())
        .execute();
      await q
        .updateTable('blob_candidate')
        .set({ since: sql<Date>`now()` })
        .where('sha256', '=', sha256)
        .execute();
      return 'adopted';
    }
    if (!row.old) {
      await q
        .updateTable('blob_candidate')
        .set({ since: sql<Date>`greatest(since, ${row.touched_at}::timestamptz)` })
        .where('sha256', '=', sha256)
        .execute();
      return 'recent';
    }
    const referenced = await q
      .selectNoFrom((eb) => [
        eb
          .or([
            eb.exists(eb.selectFrom('revision_file').select(sql.lit(1).as('one')).where('sha256', '=', sha256)),
            eb.exists(eb.selectFrom('pdf_export').select(sql.lit(1).as('one')).where('sha256', '=', sha256)),
            eb.exists(eb.selectFrom('space_pdf_export').select(sql.lit(1).as('one')).where('sha256', '=', sha256)),
          ])
          .as('referenced'),
      ])
      .executeTakeFirstOrThrow();
    await q.deleteFrom('blob_candidate').where('sha256', '=', sha256).execute();
    if (referenced.referenced) return 'referenced';
    await removeObject(sha256);
    await q.deleteFrom('blob').where('sha256', '=', sha256).execute();
    return 'collected';
  });
}

/**
 * Marks the references the rest of this transaction deletes as gone since `at` (a purge: the
 * space's deletion), so their hashes are due one grace after that, not after the purge. A hash
 * queued later than `at` keeps its later time.
 */
export async function unreferencedSince(tx: Em, at: string): Promise<void> {
  await sql`select set_config('blob.unreferenced_at', ${at}, true)`.execute(db(tx));
}
