import { Type } from 'typebox';
import { Id, ListQuery } from '../../schemas.ts';
import { Draft, NullableCondition, GroupTitle, Icon, SectionDescription, SectionPath, SectionTitle, nullable } from '../schemas.ts';

export const SectionParams = Type.Object({ organizationId: Id, siteId: Id, siteSectionId: Id });
export const GroupParams = Type.Object({ organizationId: Id, siteId: Id, siteSectionGroupId: Id });
export const GroupSectionParams = Type.Object({ organizationId: Id, siteId: Id, siteSectionGroupId: Id, siteSectionId: Id });

export const ListSectionsQuery = Type.Intersect([ListQuery, Type.Object({ shareKey: Type.Optional(Type.String({ maxLength: 512 })) })]);

export const AddSectionBody = Type.Object({
  /** An existing space, or null to create a new one titled after the section (or site-space). */
  spaceId: nullable({ minLength: 1, maxLength: 64 }),
  title: Type.Optional(Type.Union([Type.String({ minLength: 2, maxLength: 64 }), Type.Null()])),
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
  siteSectionGroupId: Type.Optional(Id),
  draft: Draft('Whether the section is created as a draft (default false): readers do not see it until it is made live.'),
});

export const UpdateSectionBody = Type.Object({
  title: Type.Optional(SectionTitle),
  path: Type.Optional(SectionPath),
  defaultSiteSpace: Type.Optional(Id),
  condition: Type.Optional(NullableCondition),
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
  description: Type.Optional(Type.Union([SectionDescription, Type.Null()])),
  siteSectionGroupId: Type.Optional(Type.Union([Id, Type.Null()])),
  draft: Draft('true makes the section a draft, false makes it live.'),
});

const SectionPointer = Type.Object({ type: Type.Literal('site-section'), siteSection: Id });
export const MoveSectionBody = Type.Object({
  position: Type.Optional(Type.Object({ before: Type.Optional(SectionPointer), after: Type.Optional(SectionPointer) })),
});

export const AddGroupBody = Type.Object({
  title: GroupTitle,
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
  sections: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  draft: Draft('Whether the section group is created as a draft: readers see none of its sections until it is made live.'),
});

export const UpdateGroupBody = Type.Object({
  title: Type.Optional(GroupTitle),
  icon: Type.Optional(Type.Union([Icon, Type.Null()])),
  draft: Draft('true makes the section group a draft, false makes it live.'),
});

export const AddSectionToGroupBody = Type.Object({ sectionId: Id });

const GroupPointer = Type.Object({ type: Type.Union([Type.Literal('site-section'), Type.Literal('site-section-group')]), id: Id });
export const MoveGroupBody = Type.Object({
  position: Type.Optional(Type.Object({ before: Type.Optional(GroupPointer), after: Type.Optional(GroupPointer) })),
});
