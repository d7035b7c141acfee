import type { LinkReference } from '../../domain/content/links.ts';

/** GitBook's shapes for link references and the pages holding them. */

/** Where a link (or a link to a file) is: a page of a space. */
export function presentPageLocation(organizationId: string, spaceId: string, pageId: string) {
  return { kind: 'page' as const, organization: organizationId, space: spaceId, page: pageId };
}

export function presentLinkReference(reference: LinkReference, organizationId: string, spaceId: string) {
  return {
    status: reference.status,
    relation: 'reference' as const,
    targetReference: reference.target,
    locationReferences: reference.pages.map((pageId) => presentPageLocation(organizationId, spaceId, pageId)),
  };
}
