import { randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import {
  deleteShareLink as deleteShareLinkRow,
  insertShareLink,
  shareLinkById,
  shareLinksListing,
  updateShareLink as updateShareLinkRow,
} from '../../../db/sites.ts';
import { newId } from '../../../domain/ids.ts';
import type { Ctx } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { paginate } from '../../pagination.ts';
import type { ListQuery } from '../../schemas.ts';
import { hashShareKey } from '../keys.ts';
import { requireSite, siteUrls } from '../site-access.ts';
import { presentShareLink } from './present.ts';
import type { CreateShareLinkBody, UpdateShareLinkBody } from './schemas.ts';

/**
 * Share links of a site: each holds a secret key that opens a published `share-link` site. The
 * key is answered once, at creation, and stored only as its SHA-256 hash. Share links are access
 * credentials, so every operation needs the admin role.
 */

const ACTION = 'manage the share links of this site';

export async function listShareLinks(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof ListQuery>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', ACTION);
  return paginate(ctx.em, shareLinksListing(ctx.em, site.id), query, (rows) =>
    rows.map((r) => presentShareLink(r, site, siteUrls(ctx.deps))),
  );
}

export async function createShareLink(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof CreateShareLinkBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', ACTION);
  const id = newId();
  const key = randomBytes(24).toString('base64url');
  await insertShareLink(ctx.em, { id, siteId: site.id, name: body.name, keyHash: hashShareKey(key) });
  return presentShareLink((await shareLinkById(ctx.em, site.id, id))!, site, siteUrls(ctx.deps), key);
}

export async function updateShareLink(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  shareLinkId: string,
  body: Static<typeof UpdateShareLinkBody>,
) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', ACTION);
  const link = await shareLinkById(ctx.em, site.id, shareLinkId);
  if (!link) throw notFound('Share link');
  await updateShareLinkRow(ctx.em, link.id, { name: body.name, active: body.active });
  return presentShareLink((await shareLinkById(ctx.em, site.id, link.id))!, site, siteUrls(ctx.deps));
}

export async function deleteShareLink(ctx: Ctx, organizationId: string, siteId: string, shareLinkId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', ACTION);
  const link = await shareLinkById(ctx.em, site.id, shareLinkId);
  if (!link) throw notFound('Share link');
  await deleteShareLinkRow(ctx.em, link.id);
}
