import type { Em } from '../../db/orm.ts';
import { leavesNoAdmin } from '../../domain/membership.ts';
import type { Role } from '../../domain/roles.ts';
import { conflict } from '../errors.ts';

/**
 * Membership changes that must keep the organization administrable. The active admins' rows are
 * locked first, so two concurrent demotions cannot both pass the "another admin remains" check.
 */
async function guardLastAdmin(tx: Em, organizationId: string, userId: string, next: Role | null | 'removed') {
  const admins = await tx.execute<{ user_id: string }[]>(
    `select user_id from member where organization_id = ? and role = 'admin' and not disabled for update`,
    [organizationId],
  );
  if (leavesNoAdmin(admins.map((a) => a.user_id), userId, next)) {
    throw conflict(
      next === 'removed'
        ? 'This member is the last admin of the organization: make another member admin before removing them'
        : 'This member is the last admin of the organization: make another member admin before changing their role',
    );
  }
}

/** Changes a member's role (null: guest). Runs in its own transaction. */
export async function changeRole(em: Em, organizationId: string, userId: string, role: Role | null): Promise<void> {
  await em.transactional(async (tx) => {
    await guardLastAdmin(tx, organizationId, userId, role);
    await tx.execute('update member set role = ? where organization_id = ? and user_id = ?', [role, organizationId, userId]);
  });
}

/**
 * Removes a member, with their places in the organization's teams and the grants made to them on
 * the organization's content. Runs in its own transaction.
 */
export async function removeMember(em: Em, organizationId: string, userId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await guardLastAdmin(tx, organizationId, userId, 'removed');
    const connection = tx;
    await connection.execute(
      'delete from team_member where user_id = ? and team_id in (select id from team where organization_id = ?)',
      [userId, organizationId],
    );
    await connection.execute(
      `delete from content_permission where user_id = ?
          and (space_id in (select id from space where organization_id = ?)
            or collection_id in (select id from collection where organization_id = ?))`,
      [userId, organizationId, organizationId],
    );
    await connection.execute('delete from member where organization_id = ? and user_id = ?', [organizationId, userId]);
  });
}
