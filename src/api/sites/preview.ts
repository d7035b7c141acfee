import { spacesByIds } from '../../db/sites.ts';
import { parseRison, RisonError } from '../../domain/sites/rison.ts';
import { liveStructure } from '../../domain/sites/drafts.ts';
import { effectiveDefault } from '../../domain/sites/order.ts';
import { siteUrl } from '../../domain/sites/urls.ts';
import { contentRoles } from '../access.ts';
import { atLeast } from '../../domain/roles.ts';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { previewTokenFor } from '../site-tokens.ts';
import { baseOf } from './present.ts';
import { requireSite, siteUrls } from './site-access.ts';
import { asOrdered, loadStructure } from './structure.ts';

/**
 * `GET …/sites/{siteId}/publishing/preview` (getSitePublishingPreviewById): a link, valid for an
 * hour, to the site as it would look when published, under SITE_PREVIEW_BASE_URL
 * (`{base}/{siteId}/{section}/{site-space}/…?token=`, the form GitBook's renderer serves as a
 * preview). With `draft` (the default), the preview shows the site's draft structure too; with
 * `draft=false`, only what readers would see. The token is a preview's token (site-token.ts): it opens this site only, published or
 * not, as the visitor `claims` describe, and reads only the spaces of the site its member can read
 * (never more than they could themselves), with their change requests and revisions.
 */
export async function getSitePreview(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  query: { siteSpace?: string; claims?: string; draft?: boolean; target?: string },
): Promise<{ url: string }> {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'read', 'preview this site');
  const claims = previewClaims(query.claims);
  // GitBook's default: a preview shows drafts unless asked not to.
  const drafts = query.draft ?? true;
  const whole = await loadStructure(ctx.em, site.id);
  const structure = drafts ? whole : liveStructure(whole);
  const spaces = await spacesByIds(ctx.em, [...new Set(structure.siteSpaces.map((s) => s.space_id))]);
  const roles = await contentRoles(ctx.em, { userId: ctx.caller.user.id, role }, 'space', spaces);
  const readable = structure.siteSpaces.filter((s) => atLeast(roles.get(s.space_id) ?? null, 'read'));

  // The site-space asked for, or the one the site opens on: the default section's default site-space.
  const defaultSection = effectiveDefault(asOrdered(structure.sections));
  const inSection = (sectionId: string | null) => readable.filter((s) => s.section_id === sectionId);
  const siteSpace =
    query.siteSpace !== undefined
      ? structure.siteSpaces.find((s) => s.id === query.siteSpace)
      : effectiveDefault(asOrdered(inSection(defaultSection?.id ?? null)));
  if (query.siteSpace !== undefined && !siteSpace) throw badRequest(`siteSpace ${query.siteSpace} is not a site-space of this site`);
  if (!siteSpace) throw notFound('Site-space to preview');
  if (!readable.some((s) => s.id === siteSpace.id)) throw notFound('Site-space');

  const section = structure.sections.find((s) => s.id === siteSpace.section_id);
  const sectionPart = section && section.id !== defaultSection?.id ? section.path : null;
  const siteSpacePart = effectiveDefault(asOrdered(inSection(siteSpace.section_id)))?.id === siteSpace.id ? null : siteSpace.path;
  const token = await previewTokenFor(ctx.deps, site.auth_key_sealed, {
    kind: 'site',
    organization: site.organization_id,
    spaces: [...new Set(readable.map((s) => s.space_id))],
    site: site.id,
    siteSpace: siteSpace.id,
    ...(section ? { siteSection: section.id } : {}),
    space: siteSpace.space_id,
    revision: siteSpace.revision_id,
    claims,
    visibility: site.visibility,
    minter: `token:${ctx.caller.tokenId}`,
    ...(drafts ? { drafts: true as const } : {}),
  });
  const base = `${ctx.deps.config.sitePreviewUrl}/${encodeURIComponent(site.id)}`;
  const path = query.target === undefined ? [sectionPart, siteSpacePart] : [targetPath(query.target, baseOf(site, siteUrls(ctx.deps)))];
  return { url: siteUrl(base, path, { token }) };
}

/** The visitor claims a preview is asked for (rison): an object; 400 otherwise. */
function previewClaims(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text === '') return {};
  let value;
  try {
    value = parseRison(text);
  } catch (error) {
    if (error instanceof RisonError) throw badRequest(`claims is not valid rison: ${error.message}`);
    throw error;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('claims must be a rison object, such as (plan:pro)');
  return value;
}

/**
 * Where in the site a preview opens (`target`): a path of the site (`/getting-started`), or a URL
 * under the site's published base; 400 for any other URL.
 */
function targetPath(target: string, siteBase: string): string {
  if (target.startsWith('/') && !target.startsWith('//')) return target.replace(/^\/+/, '');
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw badRequest('target must be a path of the site (/…) or a URL of the site');
  }
  const base = new URL(siteBase);
  const basePath = base.pathname.replace(/\/+$/, '');
  if (url.host !== base.host || !(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))) {
    throw badRequest(`target must be a URL of the site (under ${siteBase})`);
  }
  return decodeURIComponent(url.pathname.slice(basePath.length)).replace(/^\/+/, '');
}
