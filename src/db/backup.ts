import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { db } from './kysely.ts';
import type { Em } from './orm.ts';

/**
 * What backups and restores ask of PostgreSQL besides pg_dump and pg_restore (src/lib/backup.ts):
 * whether a target database exists and holds tables, creating it when missing, and, once the
 * service's database is restored, the blobs it references and the Git Sync requests to hand again
 * to the job service.
 */

/** The part of PostgreSQL's catalog these checks read. */
interface Catalog {
  'information_schema.tables': { table_schema: string; table_name: string };
  pg_database: { datname: string };
}

const UNDEFINED_DATABASE = '3D000';

async function withDatabase<T>(url: string, work: (kysely: Kysely<Catalog>) => Promise<T>): Promise<T> {
  const kysely = new Kysely<Catalog>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  try {
    return await work(kysely);
  } finally {
    await kysely.destroy();
  }
}

/** Tables of the database outside PostgreSQL's own schemas (0: empty), or null when the database does not exist. */
export async function userTableCount(url: string): Promise<number | null> {
  try {
    return await withDatabase(url, async (kysely) => {
      const row = await kysely
        .selectFrom('information_schema.tables')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('table_schema', 'not in', ['pg_catalog', 'information_schema'])
        .executeTakeFirstOrThrow();
      return Number(row.n);
    });
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_DATABASE) return null;
    throw error;
  }
}

/**
 * Creates the database `url` names, connected to the server's `postgres` database (as `createdb`
 * does), owned by the connecting user. A database created meanwhile by someone else is left as it is.
 */
export async function createDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('the database URL names no database');
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  await withDatabase(maintenance.toString(), async (kysely) => {
    const existing = await kysely.selectFrom('pg_database').select('datname').where('datname', '=', name).executeTakeFirst();
    // CREATE DATABASE takes no bound parameters: the name goes in as a quoted identifier.
    if (!existing) await sql`create database ${sql.id(name)}`.execute(kysely);
  });
}

/** The sha256 of every blob a row of the service's database references: files of revisions and recorded PDFs. */
export async function referencedBlobs(em: Em): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('revision_file')
    .select('sha256')
    .union(db(em).selectFrom('pdf_export').select('sha256'))
    .union(db(em).selectFrom('space_pdf_export').select('sha256'))
    .execute();
  return rows.map((row) => row.sha256);
}

/**
 * Marks every queued Git Sync request as not yet handed to the job service, so the API sends each
 * again (`resendGitSyncRequests`) once GIT_SYNC_RESEND_AFTER has passed: after a restore, Temporal's
 * copy may be older than the service's and miss a signal the service recorded as delivered. A
 * request sent twice is applied once. Answers how many requests wait.
 */
export async function forgetGitSyncSignals(em: Em): Promise<number> {
  const rows = await db(em)
    .updateTable('git_sync_request')
    .set({ signalled_at: null })
    .where('state', '=', 'queued')
    .returning('id')
    .execute();
  return rows.length;
}
