import type { Static } from 'typebox';
import {
  countRedirects,
  deleteRedirect as deleteRedirectRow,
  insertRedirect,
  liveRedirectForPath,
  redirectById,
  redirectsBySources,
  redirectsListing,
  updateRedirect as updateRedirectRow,
} from '../../../db/site-redirects.ts';
import { revisionPageIndex, sectionsOf, siteSpacesOf, type SiteRow } from '../../../db/sites.ts';
import type { Em } from '../../../db/orm.ts';
import { transaction } from '../../../db/orm.ts';
import { newId } from '../../../domain/ids.ts';
import { canonicalParts, MAX_REDIRECTS_PER_SITE } from '../../../domain/sites/redirects.ts';
import { siteUrl } from '../../../domain/sites/urls.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, conflict, HttpError, notFound } from '../../errors.ts';
import { paginate } from '../../pagination.ts';
import { baseOf, type SiteUrlsContext } from '../present.ts';
import { publishedReader, requireSite, siteUrls } from '../site-access.ts';
import { presentRedirect } from './present.ts';
import type { BulkRedirectsBody, CreateRedirectBody, InputDestination, ListRedirectsQuery, UpdateRedirectBody } from './schemas.ts';

/**
 * Redirects of a site: members read them, editors of the site's structure (the create role) change
 * them, and readers of the published site (members, share-key holders, the site's visitors) look
 * one up by the path they asked for. A site has at most one live and one draft redirect per source.
 */

const ACTION = 'change the redirects of this site';

type InputDestination = Static<typeof InputDestination>;

export async function listRedirects(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof ListRedirectsQuery>) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  const listing = redirectsListing(ctx.em, site.id, {
    draft: query.draft ?? false,
    search: query.search,
    orderBy: query.orderBy ?? 'createdAt',
  });
  return paginate(ctx.em, listing, query, (rows) => rows.map(presentRedirect));
}

export async function createRedirect(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof CreateRedirectBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', ACTION);
  const destination = await storedDestination(ctx.em, site, body.destination);
  const draft = body.draft ?? false;
  return transaction(ctx.em, async (tx) => {
    if ((await redirectsBySources(tx, site.id, [body.source])).some((r) => r.draft === draft)) {
      throw conflict(`A ${draft ? 'draft' : 'live'} redirect from ${body.source} already exists`);
    }
    await requireRoom(tx, site.id, 1);
    const id = newId();
    const inserted = await insertRedirect(tx, id, site.id, {
      source: body.source,
      draft,
      captureWildcard: body.captureWildcard ?? false,
      permanent: body.permanent ?? false,
      destination,
    });
    if (!inserted) throw conflict(`A ${draft ? 'draft' : 'live'} redirect from ${body.source} already exists`);
    return presentRedirect((await redirectById(tx, site.id, id))!);
  });
}

export async function updateRedirect(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  redirectId: string,
  body: Static<typeof UpdateRedirectBody>,
) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', ACTION);
  const destination = body.destination === undefined ? undefined : await storedDestination(ctx.em, site, body.destination);
  return transaction(ctx.em, async (tx) => {
    const row = await redirectById(tx, site.id, redirectId);
    if (!row) throw notFound('Site redirect');
    const source = body.source ?? row.source;
    const draft = body.draft ?? row.draft;
    const clash = (await redirectsBySources(tx, site.id, [source])).find((r) => r.draft === draft && r.id !== row.id);
    if (clash) throw conflict(`A ${draft ? 'draft' : 'live'} redirect from ${source} already exists`);
    const changed = await updateRedirectRow(tx, row.id, {
      source: body.source,
      draft: body.draft,
      captureWildcard: body.captureWildcard,
      permanent: body.permanent,
      destination,
    });
    if (!changed) throw conflict(`A ${draft ? 'draft' : 'live'} redirect from ${source} already exists`);
    return presentRedirect((await redirectById(tx, site.id, row.id))!);
  });
}

/** Deletes a redirect; false when there was none (GitBook answers 204 then, 205 otherwise). */
export async function deleteRedirect(ctx: Ctx, organizationId: string, siteId: string, redirectId: string): Promise<boolean> {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', ACTION);
  const row = await redirectById(ctx.em, site.id, redirectId);
  return row ? deleteRedirectRow(ctx.em, row.id) : false;
}

type BulkItem = Static<typeof BulkRedirectsBody>['redirects'][number];
type BulkOutcome =
  | { status: 'created' | 'updated' | 'published'; source: string; draft: boolean; id: string }
  | { status: 'deleted'; source: string; draft: boolean }
  | { status: 'error'; source: string; draft: boolean; error: string };

/**
 * Creates, updates, deletes (a null destination) or publishes (a draft made live) redirects by
 * source, in order, in one transaction. A redirect that cannot be applied (a destination that does
 * not exist, a draft to publish that is not there) is answered as an error in its place; the
 * others still apply.
 */
export async function bulkUpsertRedirects(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof BulkRedirectsBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', ACTION);
  const results = await transaction(ctx.em, async (tx) => {
    const out: BulkOutcome[] = [];
    for (const item of body.redirects) out.push(await applyBulkItem(tx, site, item));
    return out;
  });
  return { results };
}

async function applyBulkItem(tx: Em, site: SiteRow, item: BulkItem): Promise<BulkOutcome> {
  const existing = await redirectsBySources(tx, site.id, [item.source]);
  if (item.intent === 'publish') {
    const draft = existing.find((r) => r.draft);
    if (!draft) return { status: 'error', source: item.source, draft: true, error: `No draft redirect from ${item.source}` };
    const live = existing.find((r) => !r.draft);
    const fields = {
      source: item.source,
      draft: false,
      captureWildcard: draft.capture_wildcard,
      permanent: draft.permanent,
      destination: draft.destination,
    };
    await deleteRedirectRow(tx, draft.id);
    const id = live?.id ?? draft.id;
    if (live) await updateRedirectRow(tx, live.id, fields);
    else if (!(await insertRedirect(tx, id, site.id, fields))) throw conflict(`Redirects from ${item.source} changed meanwhile; try again`);
    return { status: 'published', source: item.source, draft: false, id };
  }
  const draft = item.intent === 'draft';
  const current = existing.find((r) => r.draft === draft);
  if (item.destination === null) {
    if (!current)
      return { status: 'error', source: item.source, draft, error: `No ${draft ? 'draft' : 'live'} redirect from ${item.source}` };
    await deleteRedirectRow(tx, current.id);
    return { status: 'deleted', source: item.source, draft };
  }
  let destination: Record<string, unknown>;
  try {
    destination = await storedDestination(tx, site, item.destination);
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 400)
      return { status: 'error', source: item.source, draft, error: error.message };
    throw error;
  }
  if (current) {
    await updateRedirectRow(tx, current.id, { destination, captureWildcard: item.captureWildcard, permanent: item.permanent });
    return { status: 'updated', source: item.source, draft, id: current.id };
  }
  if ((await countRedirects(tx, site.id)) >= MAX_REDIRECTS_PER_SITE) {
    return { status: 'error', source: item.source, draft, error: `A site has at most ${MAX_REDIRECTS_PER_SITE} redirects` };
  }
  const id = newId();
  const inserted = await insertRedirect(tx, id, site.id, {
    source: item.source,
    draft,
    captureWildcard: item.captureWildcard ?? false,
    permanent: item.permanent ?? false,
    destination,
  });
  if (!inserted)
    return {
      status: 'error',
      source: item.source,
      draft,
      error: `A ${draft ? 'draft' : 'live'} redirect from ${item.source} was created meanwhile`,
    };
  return { status: 'created', source: item.source, draft, id };
}

/**
 * The live redirect a reader of the published site follows from `source`, with the URL it leads
 * to; 404 when no redirect matches or its destination no longer exists.
 */
export async function redirectBySource(ctx: Ctx, organizationId: string, siteId: string, source: string, shareKey?: string) {
  const { site } = await publishedReader(ctx, organizationId, siteId, shareKey);
  const row = await liveRedirectForPath(ctx.em, site.id, source);
  if (!row) throw notFound('Site redirect');
  let target = await destinationUrl(ctx.em, site, row.destination, siteUrls(ctx.deps));
  if (!target) throw notFound('Site redirect');
  if (row.capture_wildcard && row.source.endsWith('*')) {
    const suffix = source.slice(row.source.length - 1).replace(/^\/+/, '');
    if (suffix) target = `${target.replace(/\/+$/, '')}/${suffix}`;
  }
  return { redirect: presentRedirect(row), target };
}

async function requireRoom(em: Em, siteId: string, adding: number): Promise<void> {
  if ((await countRedirects(em, siteId)) + adding > MAX_REDIRECTS_PER_SITE) {
    throw badRequest(`A site has at most ${MAX_REDIRECTS_PER_SITE} redirects`);
  }
}

/**
 * A destination as stored: its section, site-space or page checked against the site (400 when it
 * is not there); a `path` destination becomes the page at that path in the site-space that
 * publishes the space (the default one when several do).
 */
export async function storedDestination(em: Em, site: SiteRow, destination: InputDestination): Promise<Record<string, unknown>> {
  switch (destination.kind) {
    case 'external':
      return { kind: 'external', url: destination.url };
    case 'site-section': {
      if (!(await sectionsOf(em, site.id)).some((s) => s.id === destination.siteSectionId)) {
        throw badRequest(`destination.siteSectionId: section ${destination.siteSectionId} does not exist in this site`);
      }
      return { kind: 'site-section', siteSectionId: destination.siteSectionId };
    }
    case 'site-space': {
      if (!(await siteSpacesOf(em, site.id)).some((s) => s.id === destination.siteSpaceId)) {
        throw badRequest(`destination.siteSpaceId: site-space ${destination.siteSpaceId} does not exist in this site`);
      }
      return { kind: 'site-space', siteSpaceId: destination.siteSpaceId };
    }
    case 'site-page': {
      const siteSpace = (await siteSpacesOf(em, site.id)).find((s) => s.id === destination.siteSpaceId);
      if (!siteSpace) throw badRequest(`destination.siteSpaceId: site-space ${destination.siteSpaceId} does not exist in this site`);
      if (!(await revisionPageIndex(em, siteSpace.revision_id)).byId.has(destination.pageId)) {
        throw badRequest(`destination.pageId: page ${destination.pageId} does not exist in that site-space`);
      }
      return { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: destination.pageId };
    }
    case 'path': {
      const candidates = (await siteSpacesOf(em, site.id)).filter((s) => s.space_id === destination.spaceId);
      const siteSpace = candidates.find((s) => s.is_default) ?? candidates[0];
      if (!siteSpace) throw badRequest(`destination.spaceId: space ${destination.spaceId} is not published in this site`);
      const path = destination.path.replace(/^\/+|\/+$/g, '');
      const page = (await revisionPageIndex(em, siteSpace.revision_id)).byPath.get(path);
      if (!page) throw badRequest(`destination.path: no page at ${destination.path} in that space`);
      return { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: page.id };
    }
  }
}

/** The published URL (canonical: default parts left out) a stored destination leads to, or null when its target is gone. */
async function destinationUrl(em: Em, site: SiteRow, destination: Record<string, unknown>, urls: SiteUrlsContext): Promise<string | null> {
  const base = baseOf(site, urls);
  switch (destination.kind) {
    case 'external':
      return typeof destination.url === 'string' ? destination.url : null;
    case 'site-section': {
      const section = (await sectionsOf(em, site.id)).find((s) => s.id === destination.siteSectionId);
      return section ? siteUrl(base, [section.path]) : null;
    }
    case 'site-space':
    case 'site-page': {
      const siteSpaces = await siteSpacesOf(em, site.id);
      const siteSpace = siteSpaces.find((s) => s.id === destination.siteSpaceId);
      if (!siteSpace) return null;
      const parts = canonicalParts(await sectionsOf(em, site.id), siteSpaces, siteSpace);
      if (destination.kind === 'site-space') return siteUrl(base, parts);
      const page = (await revisionPageIndex(em, siteSpace.revision_id)).byId.get(String(destination.pageId));
      return page ? siteUrl(base, [...parts, page.path]) : null;
    }
    default:
      return null;
  }
}
