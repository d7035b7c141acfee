import { sql } from '../db/sql.ts';
import type { Orm } from '../db/orm.ts';

export interface PurgeInput {
  spaceId: string;
  deletedAt: string;
}

export function spaceActivities(orm: Orm) {
  return {
    /**
     * Removes a deleted space and everything hanging off it (foreign keys cascade) in one
     * statement, so in one transaction. Only the deletion identified by `deletedAt` is purged:
     * a space restored (or deleted again later) in the meantime is left alone. Idempotent.
     * Returns whether a row was removed.
     */
    async purgeDeletedSpace(input: PurgeInput): Promise<boolean> {
      const em = orm.em.fork();
      const removed = await sql(em,
        'delete from space where id = ? and deleted_at is not null and deleted_at = ?::timestamptz returning id',
        [input.spaceId, input.deletedAt],
      );
      return removed.length > 0;
    },

    /** Clears this deletion of the space, if it is still in place. Idempotent. */
    async restoreDeletedSpace(input: PurgeInput): Promise<boolean> {
      const em = orm.em.fork();
      const restored = await sql(em,
        'update space set deleted_at = null, updated_at = now() where id = ? and deleted_at = ?::timestamptz returning id',
        [input.spaceId, input.deletedAt],
      );
      return restored.length > 0;
    },
  };
}

export type SpaceActivities = ReturnType<typeof spaceActivities>;
