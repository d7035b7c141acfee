import { updateSite as updateSiteRow } from '../../db/sites.ts';
import { sortOrdered } from '../../domain/sites/order.ts';
import type { Ctx } from '../context.ts';
import { keptAnswer, type JsonAnswer } from '../json-answer.ts';
import { presentCustomization, presentSite } from './present.ts';
import { freshSite, publishedReader, requireSite, siteUrls, type PublishedReader } from './site-access.ts';
import { readerStructure, structurePresenter } from './structure.ts';
import { siteScripts } from '../integrations/site-scripts.ts';

/** Publishing a site, and the published site as members and share-key holders read it. */

export async function setPublished(ctx: Ctx, organizationId: string, siteId: string, published: boolean) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'admin', published ? 'publish this site' : 'unpublish this site');
  await updateSiteRow(ctx.em, site.id, { published });
  return freshSite(ctx, organizationId, site.id, role);
}

/**
 * The Published site for a member (everything), a share key (a published share-link site) or the
 * site's visitor: the site, its structure (sections and groups, or root site-spaces) and
 * customizations.
 */
export async function getPublishedSite(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string) {
  const reader = await publishedReader(ctx, organizationId, siteId, shareKey);
  const { site, role } = reader;
  const { tree, structure } = await structureTree(ctx, reader);
  const customization = presentCustomization(site);
  return {
    object: 'published-content-site' as const,
    site: presentSite(site, role, siteUrls(ctx.deps)),
    structure: tree,
    // Site-spaces have no customization of their own here: each takes the site's, as GitBook
    // answers one for every site-space of the structure.
    customizations: { site: customization, siteSpaces: Object.fromEntries(structure.siteSpaces.map((s) => [s.id, customization])) },
    // What integrations installed on the site inject in its pages (api/integrations/site-scripts.ts).
    scripts: await siteScripts(ctx, site.id),
  };
}

/**
 * `GET …/sites/{siteId}/structure` (getSiteStructure): the site's navigation as the published site
 * answers it, to the same readers: its members (everything, published or not, drafts included and
 * marked `draft`) and holders of an active share key of a published share-link site (what their
 * conditions show of the live structure).
 */
export async function getSiteStructure(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string) {
  return (await structureTree(ctx, await publishedReader(ctx, organizationId, siteId, shareKey), { drafts: true })).tree;
}

/**
 * The structure a reader sees: sections and groups in order, or the root site-spaces of a site
 * without sections. The published site's is live only; with `drafts`, a member sees drafts too.
 */
async function structureTree(ctx: Ctx, reader: PublishedReader, options: { drafts?: boolean } = {}) {
  const { site, role } = reader;
  const viaShareKey = reader.asVisitor;
  const structure = await readerStructure(ctx, reader, options);
  const p = await structurePresenter(ctx, site, structure, role ?? undefined);
  if (structure.sections.length > 0) {
    const items = sortOrdered([
      ...structure.groups
        .filter((g) => !viaShareKey || structure.sections.some((s) => s.group_id === g.id))
        .map((g) => ({ id: g.id, position: g.position, out: p.group(g) })),
      ...structure.sections.filter((s) => !s.group_id).map((s) => ({ id: s.id, position: s.position, out: p.section(s) })),
    ]);
    return { structure, tree: { type: 'sections' as const, structure: items.map((i) => i.out) } };
  }
  return { structure, tree: { type: 'siteSpaces' as const, structure: p.siteSpacesIn(null) } };
}

export type PublishedSite = Awaited<ReturnType<typeof getPublishedSite>>;

/**
 * The published site (getPublishedSite); for the site's own visitor, as a prepared answer kept
 * between writes (AppDeps.publishedSites: every page view of a reader asks for it): by site and by
 * what the answer depends on for a visitor (the share link their token came through, the spaces the
 * site publishes to them, the claims conditions see), served only once every write committed
 * anywhere before the request has been heard and none was counted since it was read, so a site
 * unpublished or changed, or a space deleted, through any process is never answered from it.
 * Serialized by `serialize` (the route's serializer, so it is the answer Fastify would have sent).
 */
export async function getPublishedSiteAnswer(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  shareKey: string | undefined,
  serialize: (site: PublishedSite) => string | Buffer | ArrayBuffer,
): Promise<PublishedSite | JsonAnswer> {
  const visitor = ctx.caller.visitor;
  const read = () => getPublishedSite(ctx, organizationId, siteId, shareKey);
  if (!visitor || visitor.organizationId !== organizationId || visitor.siteId !== siteId) return read();
  const key = [
    organizationId,
    siteId,
    visitor.shareLink ?? '',
    visitor.spaceIds.join(','),
    JSON.stringify(visitor.claims),
    visitor.preview ? (visitor.drafts ? 'preview drafts' : 'preview') : '',
  ].join('\n');
  return keptAnswer(ctx.deps.publishedSites, key, read, serialize, ctx.caughtUp);
}
