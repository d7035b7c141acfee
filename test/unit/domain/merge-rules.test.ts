import { describe, expect, it } from '@jest/globals';
import {
  checkMergeRules,
  describeUnmet,
  effectiveMergeRules,
  MergeRulesError,
  parseMergeRules,
  type MergeFacts,
  type MergeRule,
} from '../../../src/domain/merge-rules.ts';

const facts = (over: Partial<MergeFacts> = {}): MergeFacts => ({
  changeRequest: { subject: 'Fix typo', description: 'Why', createdBy: 'author' },
  reviews: [],
  requestedReviewers: [],
  caller: { userId: 'merger', admin: false },
  upToDate: true,
  ...over,
});
const unmetOf = (rules: MergeRule[], f: MergeFacts) => checkMergeRules(rules, f).unmet.map((u) => u.rule);
const approved = (reviewerId: string, outdated = false) => ({ reviewerId, status: 'approved' as const, outdated });
const changes = (reviewerId: string, outdated = false) => ({ reviewerId, status: 'changes-requested' as const, outdated });

describe('parseMergeRules', () => {
  it('accepts the three configurations and normalizes rules', () => {
    expect(parseMergeRules({ type: 'inherit' }, 'space')).toEqual({ type: 'inherit' });
    expect(parseMergeRules({ type: 'none' }, 'organization')).toEqual({ type: 'none' });
    expect(
      parseMergeRules(
        { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'require_specific_reviewers', users: ['a', 'a', 'b'] }] },
        'space',
      ),
    ).toEqual({
      type: 'rules',
      rules: [{ rule: 'require_at_least_one_review' }, { rule: 'require_specific_reviewers', users: ['a', 'b'] }],
    });
  });

  it.each([
    [{ type: 'inherit' }, 'organization', /type must be one of none, rules/],
    [{ type: 'sometimes' }, 'space', /type must be one of inherit, none, rules/],
    [{ type: 'rules' }, 'space', /rules is required/],
    [{ type: 'none', rules: [] }, 'space', /only allowed with type "rules"/],
    [{ type: 'rules', rules: [{ rule: 'require_magic' }] }, 'space', /rules\[0\]: unknown rule "require_magic"/],
    [{ type: 'rules', rules: [{ rule: 'require_specific_reviewers' }] }, 'space', /needs users/],
    [{ type: 'rules', rules: [{ rule: 'require_one_of_specific_reviewers', users: [] }] }, 'space', /at least one user/],
    [{ type: 'rules', rules: [{ rule: 'require_at_least_one_review', users: ['a'] }] }, 'space', /takes no parameters/],
    [{ type: 'rules', rules: [{ rule: 'custom', expression: 'true' }] }, 'space', /custom merge rules are not supported yet/],
  ] as const)('refuses %j for a %s', (input, scope, message) => {
    expect(() => parseMergeRules(structuredClone(input) as never, scope)).toThrow(MergeRulesError);
    expect(() => parseMergeRules(structuredClone(input) as never, scope)).toThrow(message);
  });
});

describe('effectiveMergeRules', () => {
  const org = { type: 'rules' as const, rules: [{ rule: 'require_at_least_one_review' as const }] };
  it('takes the space’s own rules or none, else the organization’s', () => {
    expect(effectiveMergeRules(org, null)).toEqual(org.rules);
    expect(effectiveMergeRules(org, { type: 'inherit' })).toEqual(org.rules);
    expect(effectiveMergeRules(org, { type: 'none' })).toEqual([]);
    expect(effectiveMergeRules(null, { type: 'rules', rules: [{ rule: 'require_author_to_merge' }] })).toEqual([
      { rule: 'require_author_to_merge' },
    ]);
    expect(effectiveMergeRules(null, null)).toEqual([]);
  });
});

describe('checkMergeRules', () => {
  it('require_specific_reviewers needs a current approval from every listed user', () => {
    const rules: MergeRule[] = [{ rule: 'require_specific_reviewers', users: ['a', 'b'] }];
    expect(checkMergeRules(rules, facts({ reviews: [approved('a')] })).unmet).toEqual([
      { rule: 'require_specific_reviewers', message: 'approval needed from b' },
    ]);
    expect(unmetOf(rules, facts({ reviews: [approved('a'), approved('b', true)] }))).toEqual(['require_specific_reviewers']);
    expect(unmetOf(rules, facts({ reviews: [approved('a'), approved('b')] }))).toEqual([]);
  });

  it('require_one_of_specific_reviewers needs one of them', () => {
    const rules: MergeRule[] = [{ rule: 'require_one_of_specific_reviewers', users: ['a', 'b'] }];
    expect(unmetOf(rules, facts({ reviews: [approved('c'), changes('a')] }))).toEqual(['require_one_of_specific_reviewers']);
    expect(unmetOf(rules, facts({ reviews: [approved('b')] }))).toEqual([]);
  });

  it('review counts look only at current reviews', () => {
    const one: MergeRule[] = [{ rule: 'require_at_least_one_review' }];
    const approvedOne: MergeRule[] = [{ rule: 'require_at_least_one_approved_review' }];
    expect(unmetOf(one, facts({ reviews: [approved('a', true)] }))).toEqual(['require_at_least_one_review']);
    expect(unmetOf(one, facts({ reviews: [changes('a')] }))).toEqual([]);
    expect(unmetOf(approvedOne, facts({ reviews: [changes('a'), approved('b', true)] }))).toEqual(['require_at_least_one_approved_review']);
    expect(unmetOf(approvedOne, facts({ reviews: [approved('b')] }))).toEqual([]);
  });

  it('require_all_reviews_approved refuses current change requests and pending reviewers', () => {
    const rules: MergeRule[] = [{ rule: 'require_all_reviews_approved' }];
    expect(unmetOf(rules, facts({ reviews: [approved('a'), changes('b')] }))).toEqual(['require_all_reviews_approved']);
    expect(unmetOf(rules, facts({ reviews: [approved('a')], requestedReviewers: ['c'] }))).toEqual(['require_all_reviews_approved']);
    expect(unmetOf(rules, facts({ reviews: [approved('a'), changes('b', true)] }))).toEqual([]);
  });

  it('up to date, subject, description and author', () => {
    expect(unmetOf([{ rule: 'require_up_to_date_change_request' }], facts({ upToDate: false }))).toEqual([
      'require_up_to_date_change_request',
    ]);
    expect(unmetOf([{ rule: 'require_up_to_date_change_request' }], facts())).toEqual([]);
    const blank = { subject: ' ', description: '', createdBy: 'author' };
    expect(unmetOf([{ rule: 'require_change_request_subject' }], facts({ changeRequest: blank }))).toEqual([
      'require_change_request_subject',
    ]);
    expect(unmetOf([{ rule: 'require_change_request_description' }], facts({ changeRequest: blank }))).toEqual([
      'require_change_request_description',
    ]);
    expect(unmetOf([{ rule: 'require_change_request_subject' }, { rule: 'require_change_request_description' }], facts())).toEqual([]);
    expect(unmetOf([{ rule: 'require_author_to_merge' }], facts())).toEqual(['require_author_to_merge']);
    expect(unmetOf([{ rule: 'require_author_to_merge' }], facts({ caller: { userId: 'author', admin: false } }))).toEqual([]);
  });

  it('allow_bypass lets admins (the listed ones, when listed) merge past unmet rules', () => {
    const rules = (users: string[]): MergeRule[] => [{ rule: 'require_at_least_one_review' }, { rule: 'allow_bypass', users }];
    expect(checkMergeRules(rules([]), facts({ caller: { userId: 'x', admin: true } })).bypass).toBe(true);
    expect(checkMergeRules(rules([]), facts({ caller: { userId: 'x', admin: false } })).bypass).toBe(false);
    expect(checkMergeRules(rules(['y']), facts({ caller: { userId: 'x', admin: true } })).bypass).toBe(false);
    expect(checkMergeRules(rules(['x']), facts({ caller: { userId: 'x', admin: true } })).bypass).toBe(true);
    // Nothing to bypass when every rule holds.
    expect(checkMergeRules(rules([]), facts({ reviews: [approved('a')], caller: { userId: 'x', admin: true } }))).toEqual({
      unmet: [],
      bypass: false,
    });
  });

  it('names every unmet rule', () => {
    const { unmet } = checkMergeRules([{ rule: 'require_at_least_one_review' }, { rule: 'require_author_to_merge' }], facts());
    expect(describeUnmet(unmet)).toBe(
      'Merge rules not met: require_at_least_one_review (no current review); require_author_to_merge (only the author of the change request may merge it)',
    );
  });
});
