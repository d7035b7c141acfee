import { describe, expect, it } from '@jest/globals';
import { conditionContext, conditionHolds, conditionProblem } from '../../../../src/domain/sites/conditions.ts';

const ctx = conditionContext({ signed: { plan: 'pro', roles: ['a'] }, unsigned: { betaUser: true } });

describe('conditions', () => {
  it('evaluates against signed and unsigned claims', () => {
    expect(conditionHolds('visitor.claims.unsigned.betaUser == true', ctx)).toBe(true);
    expect(conditionHolds('visitor.claims.plan == "pro" && visitor.claims.unsigned.betaUser', ctx)).toBe(true);
    expect(conditionHolds('"a" in visitor.claims.roles', ctx)).toBe(true);
    expect(conditionHolds('visitor.claims.plan == "free"', ctx)).toBe(false);
    expect(conditionHolds(null, ctx)).toBe(true);
  });

  it('hides the item when a claim is missing', () => {
    const none = conditionContext({ signed: {}, unsigned: {} });
    expect(conditionHolds('visitor.claims.unsigned.betaUser == true', none)).toBe(false);
    expect(conditionHolds('visitor.claims.unsigned.deep.er == 1', none)).toBe(false);
  });

  it('reports expressions that do not parse', () => {
    expect(conditionProblem('visitor.claims.x == 1')).toBeNull();
    expect(conditionProblem('visitor.claims ==== 1')).toMatch(/not a valid expression/);
    expect(conditionProblem('(')).toMatch(/not a valid expression/);
  });

  it('reaches nothing outside the claims: no globals, no prototypes, no calls', () => {
    for (const expression of [
      'visitor.constructor',
      'visitor.claims.plan.constructor.constructor("return process")()',
      'process',
      'globalThis',
      'this',
      'visitor.claims.__proto__',
      'Function("return 1")()',
    ]) {
      expect([expression, conditionHolds(expression, ctx)]).toEqual([expression, false]);
    }
  });
});
