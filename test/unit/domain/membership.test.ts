import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { canManageTeam, containsPattern, leavesNoAdmin, teamPermissions } from '../../../src/domain/membership.ts';
import { ROLES } from '../../../src/domain/roles.ts';

describe('team management', () => {
  it('belongs to organization admins and team owners only', () => {
    for (const role of ROLES) {
      expect(canManageTeam(role, null)).toBe(role === 'admin');
      expect(canManageTeam(role, 'member')).toBe(role === 'admin');
      expect(canManageTeam(role, 'owner')).toBe(true);
    }
    expect(canManageTeam(null, 'owner')).toBe(true);
    expect(canManageTeam(null, 'member')).toBe(false);
    expect(canManageTeam(undefined, 'owner')).toBe(false);
  });

  it('lets members with a role, and the team itself, view it', () => {
    expect(teamPermissions('read', null)).toEqual({ admin: false, view: true });
    expect(teamPermissions(null, null)).toEqual({ admin: false, view: false });
    expect(teamPermissions(null, 'member')).toEqual({ admin: false, view: true });
    expect(teamPermissions('admin', null)).toEqual({ admin: true, view: true });
    expect(teamPermissions(undefined, 'owner')).toEqual({ admin: false, view: false });
  });
});

describe('last administrator', () => {
  it('refuses to demote or remove the only admin', () => {
    expect(leavesNoAdmin(['a'], 'a', 'read')).toBe(true);
    expect(leavesNoAdmin(['a'], 'a', null)).toBe(true);
    expect(leavesNoAdmin(['a'], 'a', 'removed')).toBe(true);
    expect(leavesNoAdmin(['a'], 'a', 'admin')).toBe(false);
    expect(leavesNoAdmin(['a', 'b'], 'a', 'removed')).toBe(false);
    expect(leavesNoAdmin(['a'], 'b', 'removed')).toBe(false);
  });

  it('always keeps at least one admin, whatever the sequence of changes', () => {
    const users = ['u0', 'u1', 'u2', 'u3'];
    const change = fc.record({ user: fc.constantFrom(...users), next: fc.constantFrom(...ROLES, null, 'removed' as const) });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 40 }), (changes) => {
        const roles = new Map<string, string | null>(users.map((u, i) => [u, i === 0 ? 'admin' : 'read']));
        for (const { user, next } of changes) {
          if (!roles.has(user)) continue;
          const admins = [...roles].filter(([, r]) => r === 'admin').map(([u]) => u);
          if (leavesNoAdmin(admins, user, next)) continue;
          if (next === 'removed') roles.delete(user);
          else roles.set(user, next);
        }
        return [...roles.values()].includes('admin');
      }),
    );
  });
});

describe('search patterns', () => {
  it('escapes LIKE wildcards', () => {
    expect(containsPattern('ann')).toBe('%ann%');
    expect(containsPattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
