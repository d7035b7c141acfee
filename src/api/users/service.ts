import { userSharingOrganization } from '../../db/members.ts';
import type { Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import { urlsFor } from '../object-urls.ts';
import { presentUser } from './present.ts';

/** The authenticated user, as authentication found them. */
export function currentUser(ctx: Ctx) {
  return presentUser(ctx.caller.user, urlsFor(ctx.deps.config.publicUrl));
}

/**
 * Whose users the caller may see: the members of the organizations the caller belongs to (of the
 * token's one organization for a token bound to one), or, for a site visitor, of the site's
 * organization. Every user read of this group goes through here.
 */
function userViewer(ctx: Ctx): { userId: string | null; organizationId: string | null } {
  if (ctx.caller.visitor) return { userId: null, organizationId: ctx.caller.visitor.organizationId };
  return { userId: ctx.caller.user.id, organizationId: ctx.caller.organizationId };
}

/**
 * A user who shares an organization with the caller; 404 for anyone else, so that users of other
 * organizations cannot even be told to exist. A site visitor sees names and photos, not emails.
 */
export async function userById(ctx: Ctx, userId: string) {
  const viewer = userViewer(ctx);
  const user =
    userId === ctx.caller.user.id && !ctx.caller.visitor ? ctx.caller.user : await userSharingOrganization(ctx.em, userId, viewer);
  if (!user) throw notFound('User');
  const presented = presentUser(user, urlsFor(ctx.deps.config.publicUrl));
  if (!ctx.caller.visitor) return presented;
  const { email: _email, ...withoutEmail } = presented;
  return withoutEmail;
}
