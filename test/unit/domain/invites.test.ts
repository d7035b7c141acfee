import { describe, expect, it } from '@jest/globals';
import {
  canInviteWith,
  inviteChangesRole,
  inviteTargetOf,
  isEmailAddress,
  linkGrant,
  linkState,
  roleAfterInvite,
  rolesByEmail,
} from '../../../src/domain/invites.ts';

describe('invites', () => {
  it('never lets anyone invite above their own role', () => {
    expect(canInviteWith('admin', 'admin')).toBe(true);
    expect(canInviteWith('admin', null)).toBe(true);
    expect(canInviteWith('create', 'admin')).toBe(false);
    expect(canInviteWith('create', 'create')).toBe(true);
    expect(canInviteWith('read', 'edit')).toBe(false);
    expect(canInviteWith(null, null)).toBe(false);
  });

  it('gives newcomers exactly the offered role and never lowers a member', () => {
    expect(roleAfterInvite(undefined, 'edit')).toBe('edit');
    expect(roleAfterInvite(undefined, null)).toBeNull();
    expect(roleAfterInvite('admin', 'read')).toBe('admin');
    expect(roleAfterInvite('read', 'edit')).toBe('edit');
    expect(roleAfterInvite(null, 'read')).toBe('read');
    expect(roleAfterInvite('comment', null)).toBe('comment');
    expect(inviteChangesRole('admin', 'read')).toBe(false);
    expect(inviteChangesRole(null, null)).toBe(false);
    expect(inviteChangesRole(null, 'read')).toBe(true);
    expect(inviteChangesRole(undefined, null)).toBe(true);
  });

  it('tells active, disabled and expired links apart', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(linkState({ disabled: false, expiresAt: null }, now)).toBe('active');
    expect(linkState({ disabled: true, expiresAt: null }, now)).toBe('disabled');
    expect(linkState({ disabled: false, expiresAt: '2026-01-01T00:00:00Z' }, now)).toBe('expired');
    expect(linkState({ disabled: false, expiresAt: '2026-01-01T00:00:01Z' }, now)).toBe('active');
  });

  it('checks email addresses and merges duplicates by their highest role', () => {
    expect(isEmailAddress('a@example.com')).toBe(true);
    for (const bad of ['a', 'a@b', '@b.c', 'a b@c.d', 'a@b..c', '<a@b.c>', 'a@@b.c']) expect(isEmailAddress(bad)).toBe(false);
    const roles = rolesByEmail([
      { email: 'A@x.io', role: 'read' },
      { email: 'a@X.io', role: 'edit' },
      { email: 'b@x.io', role: null },
    ]);
    expect([...roles]).toEqual([
      ['a@x.io', 'edit'],
      ['b@x.io', null],
    ]);
  });
});

describe('inviteTargetOf', () => {
  it('reads the three forms of GitBook’s CreateOrganizationInvite', () => {
    expect(inviteTargetOf({ role: 'edit' })).toEqual({ kind: 'organization', role: 'edit' });
    expect(inviteTargetOf({ role: null })).toEqual({ kind: 'organization', role: null });
    expect(inviteTargetOf({ level: 'comment', space: 's1' })).toEqual({ kind: 'space', id: 's1', level: 'comment' });
    expect(inviteTargetOf({ level: 'read', collection: 'c1' })).toEqual({ kind: 'collection', id: 'c1', level: 'read' });
  });

  it('names what is wrong with any other body', () => {
    expect(inviteTargetOf({})).toEqual({ error: expect.stringMatching(/role is required/) });
    expect(inviteTargetOf({ level: 'read' })).toEqual({ error: expect.stringMatching(/space or collection/) });
    expect(inviteTargetOf({ level: 'read', space: 's', collection: 'c' })).toEqual({ error: expect.stringMatching(/not both/) });
    expect(inviteTargetOf({ role: 'read', space: 's' })).toEqual({ error: expect.stringMatching(/takes level/) });
    expect(inviteTargetOf({ space: 's' })).toEqual({ error: expect.stringMatching(/level is required/) });
    expect(inviteTargetOf({ level: null, collection: 'c' })).toEqual({ error: expect.stringMatching(/must be a role/) });
  });

  it("gives what a link offers only while its creator could still make it, capped by the creator's role now", () => {
    // A removed or disabled creator (undefined), or one below the role that makes such a link: no longer joins.
    expect(linkGrant('edit', undefined, 'create')).toBeUndefined();
    expect(linkGrant('read', 'edit', 'create')).toBeUndefined();
    expect(linkGrant(null, null, 'admin')).toBeUndefined();
    expect(linkGrant('read', 'create', 'admin')).toBeUndefined();
    // Still able: the offer, never above the creator's role now.
    expect(linkGrant('edit', 'create', 'create')).toBe('edit');
    expect(linkGrant('admin', 'create', 'create')).toBe('create');
    expect(linkGrant('admin', 'admin', 'admin')).toBe('admin');
    expect(linkGrant(null, 'admin', 'admin')).toBeNull();
  });
});
