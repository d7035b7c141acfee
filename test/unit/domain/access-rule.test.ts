import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { atLeast, effectiveRole, highest, ROLES, type Role } from '../../../src/domain/roles.ts';

/**
 * The access rule: effective permission on a space is the highest of the member's organization
 * role, the default levels of the space and its collections, and explicit grants to the user or
 * their teams. Guests reach only what is granted; non-members nothing.
 */
const role = fc.constantFrom(...ROLES);
const level = fc.option(role, { nil: null });

describe('effectiveRole', () => {
  it('is the highest of organization role, default levels and grants for members with a role', () => {
    fc.assert(
      fc.property(role, fc.array(level, { maxLength: 5 }), fc.array(role, { maxLength: 5 }), (org, levels, grants) => {
        const got = effectiveRole({ orgRole: org, defaultLevels: levels, grants });
        expect(got).toBe(highest(org, ...levels, ...grants));
        expect(atLeast(got, org)).toBe(true);
        for (const g of grants) expect(atLeast(got, g)).toBe(true);
        for (const l of levels) if (l) expect(atLeast(got, l)).toBe(true);
      }),
    );
  });

  it('gives guests exactly their best grant, whatever the default levels', () => {
    fc.assert(
      fc.property(fc.array(level, { maxLength: 5 }), fc.array(role, { maxLength: 5 }), (levels, grants) => {
        expect(effectiveRole({ orgRole: null, defaultLevels: levels, grants })).toBe(highest(...grants));
      }),
    );
  });

  it('gives non-members nothing', () => {
    fc.assert(
      fc.property(fc.array(level), fc.array(role), (levels, grants) => {
        expect(effectiveRole({ orgRole: undefined, defaultLevels: levels, grants })).toBeNull();
      }),
    );
  });

  it('never lowers access when a grant or a level is added', () => {
    fc.assert(
      fc.property(
        fc.option(role, { nil: null }),
        fc.array(level, { maxLength: 4 }),
        fc.array(role, { maxLength: 4 }),
        role,
        (org, levels, grants, extra) => {
          const before = effectiveRole({ orgRole: org, defaultLevels: levels, grants });
          const withGrant = effectiveRole({ orgRole: org, defaultLevels: levels, grants: [...grants, extra] });
          const withLevel = effectiveRole({ orgRole: org, defaultLevels: [...levels, extra], grants });
          if (before) {
            expect(atLeast(withGrant, before)).toBe(true);
            expect(atLeast(withLevel, before)).toBe(true);
          }
          expect(atLeast(withGrant, extra)).toBe(true);
        },
      ),
    );
  });

  it('matches the table for a few hand-picked cases', () => {
    const cases: [Role | null, (Role | null)[], Role[], Role | null][] = [
      ['read', [null, 'edit'], [], 'edit'],
      ['read', [], ['comment'], 'comment'],
      ['comment', ['read'], ['read'], 'comment'],
      ['edit', [null], ['admin'], 'admin'],
      [null, ['admin'], [], null],
      [null, ['admin'], ['read'], 'read'],
    ];
    for (const [org, levels, grants, expected] of cases)
      expect(effectiveRole({ orgRole: org, defaultLevels: levels, grants })).toBe(expected);
  });
});
