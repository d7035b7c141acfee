import type { Space } from '../../db/entities.ts';
import { spacePermissions, type Role } from '../../domain/roles.ts';
import type { Urls } from '../object-urls.ts';
import type { SpaceGitSync } from '../../db/access.ts';
import { presentSpaceGitSync } from '../git/present.ts';

/** A space with its counters, which the database keeps on the space row. */
export function presentSpace(space: Space, role: Role | null, urls: Urls, gitSync?: SpaceGitSync) {
  const spaceUrls: { location: string; app: string; published?: string; public?: string } = urls.space(space.id);
  return {
    object: 'space' as const,
    id: space.id,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility,
    createdAt: space.createdAt.toISOString(),
    updatedAt: space.updatedAt.toISOString(),
    ...(space.deletedAt ? { deletedAt: space.deletedAt.toISOString() } : {}),
    editMode: space.editMode,
    organization: space.organizationId,
    ...(space.parentId ? { parent: space.parentId } : {}),
    ...(gitSync?.url ? { gitSync: presentSpaceGitSync(gitSync) } : {}),
    revision: space.revisionId,
    defaultLevel: space.defaultLevel ?? null,
    comments: space.commentsOpen,
    changeRequests: space.changeRequests,
    changeRequestsOpen: space.changeRequestsOpen,
    changeRequestsDraft: space.changeRequestsDraft,
    mergeRules: space.mergeRules ?? { type: 'inherit' },
    urls: spaceUrls,
    permissions: spacePermissions(role, space.editMode),
  };
}
