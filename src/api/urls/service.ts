import { createHash } from 'node:crypto';
import { type Collection } from '../../db/entities.ts';
import { findChangeRequest } from '../../db/change-requests.ts';
import { loadPage, loadRevision } from '../../db/content.ts';
import { siteVisitorAuthInstallation } from '../../db/integrations.ts';
import {
  revisionPageIndex,
  siteForVisitorByHost,
  siteForVisitorById,
  siteForVisitorByKey,
  type SiteForVisitor,
  type VisitorSection,
  type VisitorSiteSpace,
} from '../../db/sites.ts';
import { unsignedClaimsProblem } from '../../domain/sites/adaptive.ts';
import { conditionContext } from '../../domain/sites/conditions.ts';
import { liveStructure } from '../../domain/sites/drafts.ts';
import { lookupPage, resolveSitePath, visibleStructure, type PageEntry, type PageIndex } from '../../domain/sites/resolve.ts';
import { contentRefOf, parsePublishedUrl, shareKeyCandidates, siteUrl, type SiteLocator } from '../../domain/sites/urls.ts';
import { verifyVisitorToken } from '../../domain/sites/visitor.ts';
import { loadCollection, loadSpace } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, HttpError, notFound } from '../errors.ts';
import { presentCollection } from '../collections/present.ts';
import { presentPage } from '../content/present.ts';
import { presentSpace } from '../spaces/present.ts';
import { baseOf } from '../sites/present.ts';
import { hashShareKey, openSigningKey } from '../sites/keys.ts';
import { siteUrls } from '../sites/site-access.ts';
import { urlsFor } from '../object-urls.ts';
import { siteTokenFor } from '../site-tokens.ts';
import { keptAnswer, type JsonAnswer } from '../json-answer.ts';

/**
 * URL resolution. `resolvePublished` is the hot path of every visitor page view: one statement
 * finds the site with its sections, live site-spaces and the share-key check; the page paths of
 * the revision come from a per-process cache (revisions never change). Everything else is pure.
 */

export interface PublishedRequest {
  url: string;
  redirectOnError?: boolean;
  jwtToken?: string;
  unsignedClaims?: Record<string, unknown>;
  visitorType?: 'human' | 'agent';
}

const NOT_FOUND = 'Published content';

async function findSite(ctx: Ctx, locator: SiteLocator, keyHashes: string[]): Promise<SiteForVisitor | undefined> {
  if (locator.kind === 'preview') {
    // A preview opens with its own token only, and only its own site's.
    const grant = ctx.caller.visitor;
    if (!grant?.preview || grant.siteId !== locator.siteId) return undefined;
    return siteForVisitorById(ctx.em, grant.organizationId, locator.siteId, '');
  }
  return locator.kind === 'own'
    ? siteForVisitorByKey(ctx.em, locator.organizationId, locator.siteKey, keyHashes)
    : siteForVisitorByHost(ctx.em, locator.hostname, locator.proxies, keyHashes);
}

/** The site's base as the URL named it (origin plus path, no trailing slash) and the path parts after it. */
function splitBase(locator: SiteLocator, found: SiteForVisitor): { base: string; segments: string[] } {
  if (locator.kind === 'preview') return { base: `${locator.base}/${encodeURIComponent(locator.siteId)}`, segments: locator.segments };
  if (locator.kind === 'own') {
    return {
      base: `${locator.base}/${encodeURIComponent(locator.organizationId)}/${encodeURIComponent(locator.siteKey)}`,
      segments: locator.segments,
    };
  }
  const proxy = found.site.proxy;
  if (proxy && found.site.hostname !== locator.hostname && locator.proxies.includes(proxy)) {
    const depth = proxy.split('/').length - 1;
    return {
      base: `${locator.origin}/${locator.segments.slice(0, depth).map(encodeURIComponent).join('/')}`,
      segments: locator.segments.slice(depth),
    };
  }
  return { base: locator.origin, segments: locator.segments };
}

/**
 * The share key the URL carries, if any: its `shareKey` query parameter, or else the path segment
 * right after the site's base when it is the key of one of the site's active share links (the
 * segment is then part of the base the answer gives: `basePath`, `siteBasePath`). `active` tells
 * whether it opens one of the site's active share links.
 */
function keyOf(
  queryKey: string | undefined,
  found: SiteForVisitor,
  split: { base: string; segments: string[] },
): { shareKey?: string; active: boolean; base: string; segments: string[] } {
  if (queryKey) return { shareKey: queryKey, active: found.shareKeyActive, ...split };
  const [first, ...rest] = split.segments;
  if (first === undefined || found.shareKeyHash === null || hashShareKey(first) !== found.shareKeyHash) return { active: false, ...split };
  return { shareKey: first, active: true, base: `${split.base}/${encodeURIComponent(first)}`, segments: rest };
}

/** Who may read the site, with the visitor's signed claims and when their JWT expires (unix seconds), if they came with one. */
type Access = { ok: true; signed: Record<string, unknown>; notAfter?: number } | { ok: false };

async function visitorAccess(ctx: Ctx, site: SiteForVisitor['site'], keyActive: boolean, token: string | undefined): Promise<Access> {
  // A preview's token reads its site as it would be published, as the visitor its claims describe.
  const grant = ctx.caller.visitor;
  if (grant?.preview && grant.siteId === site.id) {
    const { unsigned: _unsigned, ...signed } = grant.claims;
    return { ok: true, signed };
  }
  if (!site.published) return { ok: false };
  if (site.visibility === 'share-link') return keyActive ? { ok: true, signed: {} } : { ok: false };
  if (site.visibility === 'visitor-auth') {
    const verified = await verifyVisitorToken(token, await openSigningKey(ctx.deps, site));
    return verified.ok ? { ok: true, signed: verified.claims, notAfter: verified.expires } : { ok: false };
  }
  return { ok: true, signed: {} };
}

const sectionNode = (s: VisitorSection) => ({ ...s, isDefault: s.is_default });
const siteSpaceNode = (s: VisitorSiteSpace) => ({ ...s, sectionId: s.section_id, isDefault: s.is_default });

/**
 * The change request or revision a URL names (`~/changes/<id>/`, `~/revisions/<id>/`): read by a
 * preview's token only (404 for anyone else), and only one of the space the URL resolves to.
 */
async function previewedContent(
  ctx: Ctx,
  ref: { kind: 'changes' | 'revisions'; id: string } | undefined,
  spaceId: string,
): Promise<{ changeRequest?: string; revision?: string; revisionId?: string } | undefined> {
  if (!ref) return undefined;
  if (!ctx.caller.visitor?.preview) throw notFound(NOT_FOUND);
  if (ref.kind === 'changes') {
    const changeRequest = await findChangeRequest(ctx.em, spaceId, ref.id);
    if (!changeRequest) throw notFound('Change request');
    return { changeRequest: changeRequest.id, revisionId: changeRequest.revision_id };
  }
  const revision = await loadRevision(ctx.em, ref.id);
  if (!revision || revision.space_id !== spaceId) throw notFound('Revision');
  return { revision: revision.id, revisionId: revision.id };
}

export async function resolvePublished(ctx: Ctx, input: PublishedRequest) {
  const locator = parsePublishedUrl(input.url, ctx.deps.config.sitesUrl, ctx.deps.config.sitePreviewUrl);
  if (!locator) throw notFound(NOT_FOUND);
  const queryKey = locator.query.get('shareKey') ?? undefined;
  const found = await findSite(ctx, locator, (queryKey ? [queryKey] : shareKeyCandidates(locator)).map(hashShareKey));
  // A site lookup token resolves its organization's sites only; a visitor's token its own site only.
  if (!found || !mayResolve(ctx, found)) throw notFound(NOT_FOUND);
  const { site } = found;
  const preview = locator.kind === 'preview';
  const { shareKey, active: keyActive, base, segments: all } = keyOf(queryKey, found, splitBase(locator, found));
  const { segments, ref } = contentRefOf(all);
  const token = input.jwtToken ?? locator.query.get('jwt_token') ?? undefined;
  const access = await visitorAccess(ctx, site, keyActive, token);
  if (!access.ok) {
    if (input.redirectOnError && site.published && site.visibility === 'visitor-auth') {
      // A visitor authentication integration on the site signs visitors in (GitBook's va-* and oidc); else the fallback URL.
      const signing = await siteVisitorAuthInstallation(ctx.em, site.id);
      if (signing) {
        const entry = new URL(urlsFor(ctx.deps.config.publicUrl).siteVisitorAuth(signing.integrationName, signing.installationId, site.id));
        entry.searchParams.set('location', all.length > 0 ? `/${all.join('/')}` : '');
        return { target: 'external' as const, site: site.id, redirect: entry.toString() };
      }
      if (site.fallback_url) return { target: 'external' as const, site: site.id, redirect: site.fallback_url };
    }
    throw notFound(NOT_FOUND);
  }

  // Unsigned claims count only on a site that declares them in its adaptive schema.
  let unsigned: Record<string, unknown> = {};
  if (site.adaptive_schema && input.unsignedClaims && Object.keys(input.unsignedClaims).length > 0) {
    const problem = unsignedClaimsProblem(site.adaptive_schema, input.unsignedClaims);
    if (problem) throw badRequest(problem);
    unsigned = input.unsignedClaims;
  }
  const context = conditionContext({ signed: access.signed, unsigned });
  // A preview shows only the spaces its token reads (those its member could read), and drafts only when it asked for them.
  const grant = ctx.caller.visitor;
  const drafts = !!(grant?.preview && grant.drafts);
  const structure = drafts ? found : liveStructure({ sections: found.sections, siteSpaces: found.siteSpaces, groups: [] });
  const siteSpaces = grant?.preview ? structure.siteSpaces.filter((s) => grant.spaceIds.includes(s.space_id)) : structure.siteSpaces;
  const visible = visibleStructure(structure.sections.map(sectionNode), siteSpaces.map(siteSpaceNode), context);
  const resolved = resolveSitePath(visible.sections, visible.siteSpaces, segments);
  if (!resolved) throw notFound(NOT_FOUND);

  const content = await previewedContent(ctx, ref, resolved.siteSpace.space_id);
  const revisionId = content?.revisionId ?? resolved.siteSpace.revision_id;
  const index = await revisionPageIndex(ctx.em, revisionId);
  let lookup = lookupPage(index, resolved.pageSegments);
  if (lookup.kind === 'missing' && !content) {
    // A page that moved is followed; any other unknown path still resolves the site, with the
    // rest as `pathname` and no page: the reader applies the site's redirects or shows its 404.
    const moved = await movedPage(ctx, resolved.siteSpace.revision_id, index, resolved.pageSegments.join('/'));
    if (moved) lookup = { kind: 'redirect', page: moved };
  }
  const page = lookup.kind === 'missing' ? undefined : lookup.page;
  // A key in the path is part of `base`; one in the query stays in the query.
  const query = queryKey ? { shareKey: queryKey } : undefined;
  // The part of the path naming a change request or revision stays in links (the base path).
  const refPart = ref ? `~/${ref.kind}/${ref.id}` : null;
  // A preview's links stay in the preview (the renderer builds them from the canonical URL's origin).
  const canonical = siteUrl(preview ? base : baseOf(site, siteUrls(ctx.deps)), [
    resolved.sectionIsDefault ? null : resolved.section?.path,
    resolved.siteSpaceIsDefault ? null : resolved.siteSpace.path,
    refPart,
    page ? page.path : resolved.pageSegments.join('/'),
  ]);
  if (lookup.kind === 'redirect') {
    return {
      target: 'content' as const,
      redirect: siteUrl(base, [resolved.sectionPart, resolved.siteSpacePart, refPart, lookup.page.path], query),
    };
  }
  const siteBasePath = `${new URL(base).pathname.replace(/\/+$/, '')}/`;
  const basePath = `${siteBasePath}${[resolved.sectionPart, resolved.siteSpacePart]
    .filter(Boolean)
    .map((p) => `${p!.split('/').map(encodeURIComponent).join('/')}/`)
    .join('')}${refPart ? `${refPart.split('/').map(encodeURIComponent).join('/')}/` : ''}`;
  const claims = { ...access.signed, unsigned };
  const minter = minterOf(ctx);
  // Never outlives the visitor's JWT (access.notAfter): what it reads is theirs only while that holds.
  const apiToken = await siteTokenFor(
    ctx.deps,
    site.auth_key_sealed,
    {
      kind: 'site',
      organization: site.organization_id,
      spaces: [...new Set(visible.siteSpaces.map((p) => p.space_id))],
      site: site.id,
      siteSpace: resolved.siteSpace.id,
      ...(resolved.section ? { siteSection: resolved.section.id } : {}),
      space: resolved.siteSpace.space_id,
      revision: resolved.siteSpace.revision_id,
      claims,
      ...(input.visitorType ? { visitorType: input.visitorType } : {}),
      visibility: site.visibility,
      ...(site.visibility === 'share-link' && keyActive && found.shareLinkId ? { shareLink: found.shareLinkId } : {}),
      ...(minter ? { minter } : {}),
      ...(ctx.caller.visitor?.preview ? { preview: true as const } : {}),
      ...(drafts ? { drafts: true as const } : {}),
    },
    access.notAfter,
  );
  return {
    site: site.id,
    ...(resolved.section ? { siteSection: resolved.section.id } : {}),
    siteSpace: resolved.siteSpace.id,
    space: resolved.siteSpace.space_id,
    ...(content?.changeRequest ? { changeRequest: content.changeRequest } : {}),
    // The revision a visitor reads (its token is pinned to it). A preview names one only when its URL
    // does (`~/revisions/<id>/`): GitBook's renderer takes a revision answered over the change request
    // or revision it read from the URL itself.
    ...(grant?.preview ? (content?.revision ? { revision: content.revision } : {}) : { revision: resolved.siteSpace.revision_id }),
    ...(page ? { page: page.id } : {}),
    pathname: resolved.pageSegments.join('/'),
    basePath,
    siteBasePath,
    // A short-lived token that reads this site's content as this visitor (site-tokens.ts).
    apiToken,
    organization: site.organization_id,
    ...(shareKey ? { shareKey } : {}),
    complete: resolved.complete,
    ...(site.visibility === 'visitor-auth' || Object.keys(unsigned).length > 0
      ? { contextId: createHash('sha256').update(JSON.stringify(claims)).digest('base64url').slice(0, 22) }
      : {}),
    canonicalUrl: canonical,
    ...(preview ? { preview: true } : {}),
  };
}

export type PublishedLookupAnswer = Awaited<ReturnType<typeof resolvePublished>>;

/**
 * `POST /v1/urls/published` (the renderer asks it for every page view of every reader): the answer
 * as this process last gave it for the same request to a caller of the same reach (`mayResolve`:
 * a site lookup token of the same organization, a visitor's token of the same site, or any API
 * token), while no write has been counted since, in any process (AppDeps.lookupAnswers), and for
 * AUTH_CACHE_TTL at most; resolved afresh and serialized by `serialize` (the route's serializer)
 * otherwise. A lookup carrying a visitor's JWT is always resolved afresh (the JWT's own expiry
 * must be checked each time); a refusal is never remembered.
 */
export async function resolvePublishedAnswer(
  ctx: Ctx,
  input: PublishedRequest,
  serialize: (answer: PublishedLookupAnswer) => string | Buffer | ArrayBuffer,
): Promise<PublishedLookupAnswer | JsonAnswer> {
  if (input.jwtToken !== undefined || /[?&]jwt_token=/.test(input.url)) return resolvePublished(ctx, input);
  const { siteLookup, visitor } = ctx.caller;
  // The token answered names who had it minted (minterOf): an answer is shared only among callers it names alike.
  // A preview's answer (the site unpublished, the claims its token carries) is shared among previews of the same claims only.
  const reach = siteLookup
    ? `lookup ${siteLookup.organizationId}`
    : visitor
      ? `visitor ${visitor.siteId} ${visitor.minter ?? ''}${visitor.preview ? ` preview${visitor.drafts ? ' drafts' : ''} ${JSON.stringify(visitor.claims)}` : ''}`
      : `member ${ctx.caller.tokenId}`;
  const key = [
    reach,
    input.url,
    input.redirectOnError ? 'redirect' : '',
    input.visitorType ?? '',
    JSON.stringify(input.unsignedClaims ?? {}),
  ].join('\n');
  return keptAnswer(ctx.deps.lookupAnswers, key, () => resolvePublished(ctx, input), serialize, ctx.caughtUp);
}

/**
 * Who has a visitor's token minted, for the rate limit (app.ts): nobody for the site renderer's
 * site lookup token (its readers' limit applies); an API token by its id, and a visitor's token
 * refreshed by a lookup made with it, the minter it names. Reads with the token then count against
 * the minter's limit: an API token cannot mint its way past its own.
 */
function minterOf(ctx: Ctx): string | undefined {
  const { caller } = ctx;
  if (caller.siteLookup) return undefined;
  if (caller.visitor) return caller.visitor.minter;
  return `token:${caller.tokenId}`;
}

/** Who may resolve the site found (the caller's reach, which resolvePublishedAnswer's key names). */
function mayResolve(ctx: Ctx, found: SiteForVisitor): boolean {
  const { caller } = ctx;
  if (caller.siteLookup) return caller.siteLookup.organizationId === found.site.organization_id;
  if (caller.visitor) return caller.visitor.siteId === found.site.id;
  return true;
}

/** How many earlier revisions a missing path is looked up in, to follow a page that moved. */
const MOVED_LOOKBACK = 5;

/**
 * A page that was at `path` in one of the few revisions before `revisionId` and is elsewhere now:
 * its current place. Only runs when a path is not found, so it costs nothing on the hot path.
 */
async function movedPage(ctx: Ctx, revisionId: string, current: PageIndex, path: string): Promise<PageEntry | undefined> {
  if (path === '') return undefined;
  let at = await loadRevision(ctx.em, revisionId);
  for (let depth = 0; at && depth < MOVED_LOOKBACK; depth++) {
    const parent = at.parents[0];
    if (!parent) return undefined;
    const earlier = (await revisionPageIndex(ctx.em, parent)).byPath.get(path);
    const now = earlier && current.byId.get(earlier.id);
    if (now) return now.type === 'group' ? current.firstDocumentUnder.get(now.id) : now;
    at = await loadRevision(ctx.em, parent);
  }
  return undefined;
}

/** `GET /v1/urls/embed`: the title of a published page, for a link preview. Only public content. */
export async function embedByUrl(ctx: Ctx, url: string) {
  const resolved = await resolvePublished(ctx, { url, redirectOnError: false });
  if (!('page' in resolved) || !resolved.page) throw notFound(NOT_FOUND);
  const locator = parsePublishedUrl(url, ctx.deps.config.sitesUrl, ctx.deps.config.sitePreviewUrl)!;
  const found = (await findSite(ctx, locator, []))!;
  const index = await revisionPageIndex(
    ctx.em,
    resolved.revision ?? found.siteSpaces.find((s) => s.id === resolved.siteSpace)!.revision_id,
  );
  const page = index.byId.get(resolved.page)!;
  return { title: page.title, site: found.site.title, type: 'link' as const };
}

/**
 * `GET /v1/urls/content`: the service's own app URLs (`{PUBLIC_URL}/app/collections/{id}`,
 * `/app/spaces/{id}`, `/app/spaces/{id}/pages/{pageId}`, and the API's `/v1/collections/{id}`,
 * `/v1/spaces/{id}`) resolved to the object, for callers who may read it (404 otherwise).
 */
export async function contentByUrl(ctx: Ctx, url: string) {
  const publicUrl = ctx.deps.config.publicUrl;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest('url is not a valid URL');
  }
  if (parsed.origin !== new URL(publicUrl).origin) throw notFound('Content for this URL');
  const match = /^\/(?:app|v1)\/(collections|spaces)\/([^/]+)(?:\/pages\/([^/]+))?\/?$/.exec(parsed.pathname);
  if (!match) throw notFound('Content for this URL');
  const [, kind, id, pageId] = match;
  const urls = urlsFor(publicUrl);
  if (kind === 'collections') {
    if (pageId) throw notFound('Content for this URL');
    const { collection, role } = await loadCollection(ctx.em, ctx.caller, decodeURIComponent(id));
    return { collection: presentCollection(collection as Collection, role, urls) };
  }
  const { space, role } = await loadSpace(ctx.em, ctx.caller, decodeURIComponent(id));
  const presented = presentSpace(space, role, urls);
  if (!pageId) return { space: presented };
  const page = await loadPage(ctx.em, space.revisionId, decodeURIComponent(pageId));
  if (!page) throw notFound('Page');
  const path = (await revisionPageIndex(ctx.em, space.revisionId)).byId.get(page.id)?.path ?? page.slug;
  const options = { publicUrl, spaceId: space.id, metadata: true, base: `/v1/spaces/${space.id}` };
  return { space: presented, page: presentPage(page, path, [], options) };
}

/**
 * Who may ask for embeds in a space: a reader of the space, or a site visitor whose token grants
 * the space (a space of the site's live site-spaces). 404 for anyone else.
 */
async function spaceEmbedReader(ctx: Ctx, spaceId: string): Promise<void> {
  const visitor = ctx.caller.visitor;
  if (visitor) {
    if (!visitor.spaceIds.includes(spaceId)) throw notFound('Space');
    return;
  }
  await loadSpace(ctx.em, ctx.caller, spaceId);
}

/**
 * `GET /v1/spaces/{spaceId}/embed`: how the content of a space embeds a URL. A page of a public
 * published site is described by its title and site; any other web address is a plain link (the
 * address is never fetched on the reader's behalf).
 */
export async function embedInSpace(ctx: Ctx, spaceId: string, url: string) {
  await spaceEmbedReader(ctx, spaceId);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest('url is not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw badRequest('url must be an http or https URL');
  try {
    return await embedByUrl(ctx, url);
  } catch (error) {
    if (!(error instanceof HttpError) || error.statusCode !== 404) throw error;
  }
  return { title: url, site: parsed.hostname, type: 'link' as const };
}
