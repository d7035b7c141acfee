import { Type } from 'typebox';
import { Id, ListQuery } from '../../schemas.ts';
import { Draft, NullableCondition, SectionPath, SiteTitle, nullable } from '../schemas.ts';

export const SiteSpaceParams = Type.Object({ organizationId: Id, siteId: Id, siteSpaceId: Id });

export const ListSiteSpacesQuery = Type.Intersect([
  ListQuery,
  Type.Object({ shareKey: Type.Optional(Type.String({ maxLength: 512 })), default: Type.Optional(Type.Boolean()) }),
]);

export const AddSiteSpaceBody = Type.Object({
  /** An existing space, or null to create a new one titled after the section (or site-space). */
  spaceId: nullable({ minLength: 1, maxLength: 64 }),
  sectionId: Type.Optional(Id),
  title: Type.Optional(SiteTitle),
  draft: Draft('Whether the site-space is added as a draft (default false): readers do not see it until it is made live.'),
});

export const UpdateSiteSpaceBody = Type.Object({
  path: Type.Optional(SectionPath),
  condition: Type.Optional(NullableCondition),
  spaceId: Type.Optional(Id),
  hidden: Type.Optional(Type.Boolean()),
  draft: Draft('true makes the site-space a draft, false makes it live.'),
});

const Pointer = Type.Object({ type: Type.Literal('site-space'), siteSpace: Id });
export const MoveSiteSpaceBody = Type.Object({
  position: Type.Optional(Type.Object({ before: Type.Optional(Pointer), after: Type.Optional(Pointer) })),
});
