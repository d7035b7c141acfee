/**
 * `npm run restore -- --from <dir> [--temporal-db <url>]… [--skip-temporal] [--force] [--pg-bin <dir>]`:
 * restores a backup written by `npm run backup` into DATABASE_URL (created when missing), Temporal's
 * databases into --temporal-db URLs (or TEMPORAL_DB_URLS; matched by database name), and its blobs
 * into the blob store the configuration selects. Databases that hold tables are refused unless
 * --force. Run it with the service stopped, then start the service with the same secrets key.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { BackupInputError, blobLocationOf, restore, runScript, temporalDatabaseUrls } from '../src/lib/backup.ts';

await runScript(async () => {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        from: { type: 'string' },
        'temporal-db': { type: 'string', multiple: true },
        'skip-temporal': { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        'pg-bin': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new BackupInputError((error as Error).message);
  }
  if (!values.from) throw new BackupInputError('--from <directory> is required: a directory written by `npm run backup`');
  const config = loadConfig();
  if (!config.databaseUrl) throw new BackupInputError('DATABASE_URL is required: the database to restore the service into');
  const report = await restore({
    from: values.from,
    databaseUrl: config.databaseUrl,
    temporalDatabaseUrls: temporalDatabaseUrls(values['temporal-db'], process.env),
    skipTemporal: values['skip-temporal'],
    force: values.force,
    blobs: blobLocationOf(config),
    pgBin: values['pg-bin'],
    log: (line) => console.log(line),
  });
  // A referenced blob missing from the store is thrown by restore() itself (MissingBlobsError).
  console.log(`restored ${report.databases.length} databases and ${report.blobs.count} blobs; every referenced blob is in the store`);
});
