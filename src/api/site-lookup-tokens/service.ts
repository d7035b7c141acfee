import type { Static } from 'typebox';
import { deleteLookupToken, insertLookupToken, lookupTokenById, lookupTokensListing } from '../../db/sites.ts';
import { hashToken, newId, newLookupToken } from '../../domain/ids.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { presentLookupToken } from './present.ts';
import type { CreateLookupTokenBody } from './schemas.ts';

/**
 * Site lookup tokens: what an organization gives the renderer of its sites (GitBook's renderer's
 * `GITBOOK_API_TOKEN`). Such a token resolves published URLs of the organization's sites
 * (`POST/GET /v1/urls/published`) and is refused everywhere else; the renderer then reads the
 * content with the visitor's token of each answer. The secret is answered once, at creation, and
 * stored only as its SHA-256 hash. They are credentials: every operation needs the admin role.
 */

const ACTION = 'manage the site lookup tokens of this organization';

export async function listLookupTokens(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const { organization } = await requireOrganization(ctx, organizationId, 'admin', ACTION);
  return paginate(ctx.em, lookupTokensListing(ctx.em, organization.id), query, (rows) => rows.map((r) => presentLookupToken(r)));
}

export async function createLookupToken(ctx: Ctx, organizationId: string, body: Static<typeof CreateLookupTokenBody>) {
  const { organization } = await requireOrganization(ctx, organizationId, 'admin', ACTION);
  const id = newId();
  const token = newLookupToken();
  await insertLookupToken(ctx.em, {
    id,
    organizationId: organization.id,
    label: body.label,
    tokenHash: hashToken(token),
    createdBy: ctx.caller.user.id,
  });
  return presentLookupToken((await lookupTokenById(ctx.em, organization.id, id))!, token);
}

/** Revokes a token: it stops working within the authentication cache's lifetime (seconds). */
export async function revokeLookupToken(ctx: Ctx, organizationId: string, tokenId: string) {
  const { organization } = await requireOrganization(ctx, organizationId, 'admin', ACTION);
  const row = await lookupTokenById(ctx.em, organization.id, tokenId);
  if (!row) throw notFound('Site lookup token');
  await deleteLookupToken(ctx.em, row.id);
}
