import { Migration } from '@mikro-orm/migrations';

/**
 * A Git Sync request is answered once its row is committed; the signal that hands it to the
 * space's sync workflow follows the answer, and `signalled_at` records that it reached the job
 * service. A request still without it after a while (the job service was down, or the API process
 * stopped in between) is sent again by any API process (api/git/service.ts, `resendGitSyncRequests`);
 * the partial index holds only those few rows. Requests recorded before this migration count as
 * not signalled: the queued ones among them are sent once more, which a sync workflow ignores for
 * a request it already holds and a finished request never runs again.
 */
export class Migration0029GitSyncHandOff extends Migration {
  override name = 'Migration0029GitSyncHandOff';

  override up(): void {
    this.addSql(`
      alter table git_sync_request add column signalled_at timestamptz;
      create index git_sync_request_unsignalled_idx on git_sync_request (created_at)
        where state = 'queued' and signalled_at is null;
    `);
  }
}
