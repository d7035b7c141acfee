/**
 * `npm run backup -- --to <dir> [--temporal-db <url>]… [--pg-bin <dir>]`: backs up the running
 * service into <dir>: pg_dump (custom format) of Temporal's databases (--temporal-db, repeated, or
 * TEMPORAL_DB_URLS, comma-separated), then of the service's (DATABASE_URL), then a copy of the blob
 * store the configuration selects (BLOB_STORE, BLOB_DIR or S3_*), and last `manifest.json`. Blobs
 * already in <dir> from an earlier backup are not copied again. The secrets key is not included:
 * keep it apart (docs/operations.md, "Backups and restore").
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { BackupInputError, backup, blobLocationOf, maskUrl, runScript, temporalDatabaseUrls } from '../src/lib/backup.ts';

await runScript(async () => {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        to: { type: 'string' },
        'temporal-db': { type: 'string', multiple: true },
        'pg-bin': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new BackupInputError((error as Error).message);
  }
  if (!values.to) throw new BackupInputError('--to <directory> is required: where the backup is written');
  const config = loadConfig();
  if (!config.databaseUrl) throw new BackupInputError('DATABASE_URL is required: the service database to back up');
  const manifest = await backup({
    to: values.to,
    databaseUrl: config.databaseUrl,
    temporalDatabaseUrls: temporalDatabaseUrls(values['temporal-db'], process.env),
    blobs: blobLocationOf(config),
    pgBin: values['pg-bin'],
    log: (line) => console.log(line),
  });
  console.log(
    `backup of ${maskUrl(config.databaseUrl)} written to ${values.to} (${manifest.databases.length} databases, ${manifest.blobs.count} blobs)`,
  );
  console.log('The secrets key is not in it: keep SECRETS_KEY (or $DATA_DIR/secrets.key) apart from it, safely.');
});
