import { describe, expect, it } from '@jest/globals';
import { atLeast, effectiveRole, highest, spacePermissions, ROLES } from '../../../src/domain/roles.ts';

describe('roles', () => {
  it('orders roles from admin down to read', () => {
    for (let i = 0; i < ROLES.length; i++) {
      for (let j = 0; j < ROLES.length; j++) expect(atLeast(ROLES[i], ROLES[j])).toBe(i <= j);
    }
    expect(atLeast(null, 'read')).toBe(false);
  });

  it('picks the highest role', () => {
    expect(highest('read', 'edit', null, 'comment')).toBe('edit');
    expect(highest(null, undefined)).toBeNull();
  });

  it('lets default levels and grants raise a member but never a non-member', () => {
    expect(effectiveRole({ orgRole: 'read', defaultLevels: ['edit', null] })).toBe('edit');
    expect(effectiveRole({ orgRole: 'admin', defaultLevels: ['read'] })).toBe('admin');
    expect(effectiveRole({ orgRole: 'read', grants: ['review'] })).toBe('review');
    expect(effectiveRole({ orgRole: undefined, defaultLevels: ['admin'], grants: ['admin'] })).toBeNull();
  });

  it('gives guests only what is granted to them', () => {
    expect(effectiveRole({ orgRole: null, defaultLevels: ['edit'] })).toBeNull();
    expect(effectiveRole({ orgRole: null, defaultLevels: ['edit'], grants: ['comment'] })).toBe('comment');
  });

  it('derives space permissions, with a locked space refusing edits and merges', () => {
    expect(spacePermissions('edit')).toMatchObject({ view: true, edit: true, merge: false, admin: false });
    expect(spacePermissions('admin', 'locked')).toMatchObject({ edit: false, merge: false, admin: true });
    expect(spacePermissions(null)).toMatchObject({ view: false, comment: false });
  });
});
