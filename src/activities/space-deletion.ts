import { forkEm, type Orm } from '../db/orm.ts';
import { attachAudit, jobIntent, spaceOrganization } from '../db/audit.ts';
import { JOB_ACTIONS } from '../domain/audit.ts';
import { purgeDeletedSpace, restoreDeletedSpace } from '../db/spaces.ts';

export interface PurgeInput {
  spaceId: string;
  deletedAt: string;
}

/** Activities of the `space-deletion` workflow. */
export function spaceDeletionActivities(orm: Orm) {
  return {
    /**
     * Removes a deleted space and everything hanging off it (foreign keys cascade) in one
     * statement, so in one transaction. Only the deletion identified by `deletedAt` is purged:
     * a space restored (or deleted again later) in the meantime is left alone. Idempotent.
     * Returns whether a row was removed.
     */
    async purgeDeletedSpace(input: PurgeInput): Promise<boolean> {
      const em = forkEm(orm);
      // The purge's audit event (actor `system`), recorded by its transaction if it removed the space.
      const organizationId = await spaceOrganization(em, input.spaceId);
      if (organizationId) {
        attachAudit(
          em,
          jobIntent({
            action: JOB_ACTIONS.spacePurge.action,
            organizationId,
            target: { type: 'space', id: input.spaceId },
            fallbackCorrelationId: `space-purge/${input.spaceId}/${input.deletedAt}`,
          }),
        );
      }
      return purgeDeletedSpace(em, input.spaceId, input.deletedAt);
    },

    /** Clears this deletion of the space, if it is still in place. Idempotent. */
    async restoreDeletedSpace(input: PurgeInput): Promise<boolean> {
      return restoreDeletedSpace(forkEm(orm), input.spaceId, input.deletedAt);
    },
  };
}

export type SpaceDeletionActivities = ReturnType<typeof spaceDeletionActivities>;
