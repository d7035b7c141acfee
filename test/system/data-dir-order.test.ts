import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../../src/lib/infra.ts';
import { loadSecretsKey } from '../../src/lib/secrets.ts';

/**
 * The README's two commands share DATA_DIR and must work in either order, as root or not:
 * `npm test` creates the secrets key there (tests open secret boxes on the default data directory),
 * `npm start` runs the embedded PostgreSQL there, which as root runs as the `postgres` user. Each
 * case drives the real functions both commands call against a fresh DATA_DIR of its own.
 */

const asRoot = process.getuid?.() === 0;
const scratch = mkdtempSync(join(tmpdir(), 'data-dir-order-'));
// mkdtemp makes 0700; a checkout's directory is usually 0755, which is what the data directory sits in.
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let cases = 0;
const freshDataDir = () => join(scratch, `data-${++cases}`);

/** What `npm test` does to the data directory: the secrets key, created on first use. */
const createSecretsKey = (dataDir: string) => loadSecretsKey({ secretsKey: undefined, dataDir });

/** What `npm start` does with it: the embedded PostgreSQL, which must start and answer a query. */
async function startAndQuery(dataDir: string): Promise<void> {
  const server = await startEmbeddedPostgres(dataDir, await freePort());
  try {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query('select current_database() as name, 1 + 1 as two');
      expect(rows).toEqual([{ name: 'docs', two: 2 }]);
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
  }
}

const postgresUser = () => ({
  uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
  gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
});

/** The key file stays the service user's alone: 0600, its owner, and (as root) unreadable by `postgres`. */
function expectPrivateKey(dataDir: string): void {
  const file = join(dataDir, 'secrets.key');
  const stat = statSync(file);
  expect(stat.mode & 0o777).toBe(0o600);
  expect(stat.uid).toBe(process.getuid?.());
  if (!asRoot) return;
  const read = spawnSync('cat', [file], { ...postgresUser(), encoding: 'utf8' });
  expect(read.status).not.toBe(0);
  expect(read.stdout).toBe('');
  expect(read.stderr).toMatch(/Permission denied/);
}

describe('the data directory, whatever order the README commands run in', () => {
  it('`npm test` first (secrets key), then `npm start` (embedded PostgreSQL)', async () => {
    const dataDir = freshDataDir();
    const key = await createSecretsKey(dataDir);
    await startAndQuery(dataDir);
    expectPrivateKey(dataDir);
    expect((await createSecretsKey(dataDir)).equals(key)).toBe(true);
  });

  it('`npm start` first, then `npm test`, then `npm start` again', async () => {
    const dataDir = freshDataDir();
    await startAndQuery(dataDir);
    await createSecretsKey(dataDir);
    expectPrivateKey(dataDir);
    await startAndQuery(dataDir);
    if (asRoot) {
      const database = statSync(join(dataDir, 'postgres'));
      expect(database.uid).toBe(postgresUser().uid);
      expect(database.mode & 0o777).toBe(0o700);
    }
  });

  it('a data directory left 0700 by an earlier version, key inside, still starts', async () => {
    const dataDir = freshDataDir();
    mkdirSync(dataDir, { mode: 0o700 });
    chmodSync(dataDir, 0o700);
    const key = await createSecretsKey(dataDir);
    await startAndQuery(dataDir);
    // As root the postgres user may now pass through it (search only, not list); nothing else changed.
    if (asRoot) expect(statSync(dataDir).mode & 0o777).toBe(0o711);
    expectPrivateKey(dataDir);
    expect((await createSecretsKey(dataDir)).equals(key)).toBe(true);
  });

  (asRoot ? it : it.skip)('as root, a database directory another user owns is refused with how to fix it', async () => {
    const dataDir = freshDataDir();
    await startAndQuery(dataDir);
    const databaseDir = join(dataDir, 'postgres');
    execFileSync('chown', ['-R', '0:0', databaseDir]);
    await expect(startEmbeddedPostgres(dataDir, await freePort())).rejects.toThrow(
      `The embedded PostgreSQL's data in ${databaseDir} belongs to uid 0, but as root it runs as the postgres user`,
    );
  });

  (asRoot ? it : it.skip)('as root, a data directory the postgres user cannot reach is refused with the directory named', async () => {
    const closed = join(scratch, 'closed');
    mkdirSync(closed, { mode: 0o700 });
    chmodSync(closed, 0o700);
    const dataDir = join(closed, 'data');
    await expect(startEmbeddedPostgres(dataDir, await freePort())).rejects.toThrow(
      `the postgres user, which PostgreSQL runs as when the service runs as root, cannot enter ${closed}`,
    );
  });
});
