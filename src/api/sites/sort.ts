import type { Static } from 'typebox';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import type { SortStructureBody } from './schemas.ts';
import { sortTopLevel } from './sections/service.ts';
import { sortSiteSpace } from './spaces/service.ts';

/**
 * `PATCH …/sites/{siteId}/structure/sort` (sortSiteStructure): one item of the site's structure
 * moved among its siblings of the same level: a site-space among the site-spaces of its section
 * (or the root), a section or section group among the top level (they share one order). The
 * neighbour must be a sibling of that level (400 otherwise); an item the site does not have is 404.
 * External links are not part of this service's site structures: none is ever found.
 */
export async function sortSiteStructure(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof SortStructureBody>) {
  const { item, position } = body;
  const level = item.type === 'site-space' ? ['site-space'] : ['site-section', 'site-section-group'];
  for (const [field, pointer] of [
    ['before', position.before],
    ['after', position.after],
  ] as const) {
    if (pointer && !level.includes(pointer.type)) {
      throw badRequest(`position.${field} must point at a sibling of the ${item.type} (${level.join(' or ')}), not a ${pointer.type}`);
    }
  }
  const at = { before: position.before?.id, after: position.after?.id };
  if (item.type === 'site-external-link') throw notFound('Site external link');
  if (item.type === 'site-space') return sortSiteSpace(ctx, organizationId, siteId, item.id, at);
  return sortTopLevel(ctx, organizationId, siteId, { type: item.type, id: item.id }, at);
}
