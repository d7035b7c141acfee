import type { Space } from '../../db/entities.ts';
import { spacePermissions, type Role } from '../../domain/roles.ts';
import type { Urls } from '../urls.ts';
import type { Em } from '../../db/orm.ts';
import { spaceCounters } from './counters.ts';

/** Live counts shown on a space. */
export interface SpaceCounters {
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

export const NO_COUNTERS: SpaceCounters = { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 };

export function presentSpace(space: Space, role: Role | null, urls: Urls, counters: SpaceCounters = NO_COUNTERS) {
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
    revision: space.revisionId,
    defaultLevel: space.defaultLevel ?? null,
    ...counters,
    mergeRules: { type: 'inherit' },
    urls: spaceUrls,
    permissions: spacePermissions(role, space.editMode),
  };
}

/** Spaces with their live counters, fetched together for the whole page. */
export async function presentSpaces(em: Em, spaces: Space[], roleOf: (space: Space) => Role | null, urls: Urls) {
  const counters = await spaceCounters(em, spaces.map((s) => s.id));
  return spaces.map((s) => presentSpace(s, roleOf(s), urls, counters.get(s.id)));
}

/** One space; with `counts` (as `loadSpace` returns them) no further query is made. */
export async function presentOneSpace(em: Em, space: Space, role: Role | null, urls: Urls, counts?: SpaceCounters) {
  if (counts) return presentSpace(space, role, urls, counts);
  return (await presentSpaces(em, [space], () => role, urls))[0];
}
