/**
 * Roles and the one rule that turns them into access. Roles are ordered from most to least:
 * admin > create > review > edit > comment > read. `null` means no role (a guest of the organization).
 */
export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `role` grants at least `min`. No role grants nothing. */
export function atLeast(role: Role | null | undefined, min: Role): boolean {
  return role != null && RANK[role] >= RANK[min];
}

/** The highest of the given roles, or null when none is given. */
export function highest(...roles: (Role | null | undefined)[]): Role | null {
  let best: Role | null = null;
  for (const role of roles) if (role != null && (best === null || RANK[role] > RANK[best])) best = role;
  return best;
}

export interface AccessFacts {
  /** The caller's role in the organization; null for a guest, undefined when not a member at all. */
  orgRole: Role | null | undefined;
  /** `defaultLevel` of the object and of each collection above it. */
  defaultLevels?: (Role | null)[];
  /** Roles granted explicitly to the caller or to a team of the caller on the object or its ancestors. */
  grants?: Role[];
}

/**
 * Effective role on a piece of content: the highest of the member's organization role, the
 * default levels of the object and its collections, and explicit grants. Default levels apply to
 * members with a role; guests reach content only through explicit grants. Non-members get nothing.
 */
export function effectiveRole(facts: AccessFacts): Role | null {
  if (facts.orgRole === undefined) return null;
  const grants = facts.grants ?? [];
  if (facts.orgRole === null) return highest(...grants);
  return highest(facts.orgRole, ...(facts.defaultLevels ?? []), ...grants);
}

/** Permissions of a member (any member, guests included, can view the organization). */
export function organizationPermissions(role: Role | null) {
  return {
    view: true,
    access: true,
    admin: atLeast(role, 'admin'),
    ownTeam: atLeast(role, 'admin'),
    createContent: atLeast(role, 'create'),
    createOpenAPISpec: atLeast(role, 'create'),
    viewBilling: atLeast(role, 'admin'),
    listMembers: atLeast(role, 'read'),
    listTeams: atLeast(role, 'read'),
    listIntegrations: atLeast(role, 'read'),
    listInstallations: atLeast(role, 'admin'),
    installIntegration: atLeast(role, 'admin'),
  };
}

export function collectionPermissions(role: Role | null) {
  return {
    view: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    create: atLeast(role, 'create'),
  };
}

export function spacePermissions(role: Role | null, editMode: 'live' | 'locked' | string = 'live') {
  const unlocked = editMode !== 'locked';
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    edit: unlocked && atLeast(role, 'edit'),
    triggerGitSync: atLeast(role, 'edit'),
    comment: atLeast(role, 'comment'),
    merge: unlocked && atLeast(role, 'review'),
    review: atLeast(role, 'review'),
    installIntegration: atLeast(role, 'admin'),
  };
}
