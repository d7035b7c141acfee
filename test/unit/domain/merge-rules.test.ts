import { describe, expect, it } from '@jest/globals';
import {
  checkMergeRules,
  describeUnmet,
  effectiveMergeRules,
  MAX_EXPRESSION_LENGTH,
  MergeRulesError,
  needsEvaluationContext,
  parseMergeRules,
  type MergeRulesEvaluationContext,
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
    [{ type: 'rules', rules: [{ rule: 'require_agent_review' }] }, 'space', /require_agent_review merge rules are not supported/],
    [{ type: 'rules', rules: [{ rule: 'custom' }] }, 'space', /rules\[0\]: custom needs an expression/],
    [{ type: 'rules', rules: [{ rule: 'custom', expression: 1 }] }, 'space', /rules\[0\]\.expression must be a string/],
    [{ type: 'rules', rules: [{ rule: 'custom', expression: '  ' }] }, 'space', /rules\[0\]\.expression is empty/],
    [{ type: 'rules', rules: [{ rule: 'custom', expression: 'true', users: [] }] }, 'space', /custom takes only expression and message/],
    [
      { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'custom', expression: 'changeRequest.subject ==== 1' }] },
      'space',
      /^mergeRules\.rules\[1\]\.expression is not a valid expression: /,
    ],
    [{ type: 'rules', rules: [{ rule: 'custom', expression: '(' }] }, 'organization', /rules\[0\]\.expression is not a valid expression: /],
    [{ type: 'rules', rules: [{ rule: 'custom', expression: 'reviews|length > 0' }] }, 'space', /Transform length is not defined/],
    [{ type: 'rules', rules: [{ rule: 'custom', expression: 'f(1)' }] }, 'space', /not a valid expression/],
    [
      { type: 'rules', rules: [{ rule: 'custom', expression: `"${'x'.repeat(1023)}"` }] },
      'space',
      /expression is 1025 characters long; at most 1024 are allowed/,
    ],
  ] as const)('refuses %j for a %s', (input, scope, message) => {
    expect(() => parseMergeRules(structuredClone(input) as never, scope)).toThrow(MergeRulesError);
    expect(() => parseMergeRules(structuredClone(input) as never, scope)).toThrow(message);
  });
});

describe('parseMergeRules: custom', () => {
  it('keeps the expression and the message', () => {
    const rules = [
      { rule: 'custom', expression: 'changeRequest.subject != ""', message: 'Give it a subject' },
      { rule: 'custom', expression: 'reviews[.status == "approved" && !.outdated][0]' },
    ];
    expect(parseMergeRules({ type: 'rules', rules }, 'space')).toEqual({ type: 'rules', rules });
    const longest = `"${'x'.repeat(MAX_EXPRESSION_LENGTH - 2)}"`;
    expect(parseMergeRules({ type: 'rules', rules: [{ rule: 'custom', expression: longest }] }, 'space').type).toBe('rules');
    expect(needsEvaluationContext([{ rule: 'require_at_least_one_review' }])).toBe(false);
    expect(needsEvaluationContext([{ rule: 'custom', expression: 'true' }])).toBe(true);
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

  describe('custom', () => {
    const user = (id: string) => ({ object: 'user', id, displayName: id, urls: { location: `http://x/v1/users/${id}` } });
    const review = (reviewer: string, status: string, outdated = false) => ({
      object: 'change-request-review',
      reviewer: user(reviewer),
      status,
      outdated,
    });
    const context = (over: Partial<MergeRulesEvaluationContext> = {}): MergeRulesEvaluationContext => ({
      space: { object: 'space', id: 's1', title: 'Handbook', visibility: 'private', permissions: { merge: true } },
      changeRequest: { object: 'change-request', id: 'c1', number: 3, subject: 'Fix typo', createdBy: user('author'), outdated: false },
      reviews: [review('a', 'approved'), review('b', 'changes-requested', true)],
      actor: user('merger'),
      ...over,
    });
    const custom = (expression: string, message?: string): MergeRule[] => [{ rule: 'custom', expression, ...(message ? { message } : {}) }];
    const check = (expression: string, ctx = context(), message?: string) =>
      checkMergeRules(custom(expression, message), facts({ context: ctx })).unmet;

    it('holds when the expression is truthy against the context', () => {
      for (const expression of [
        'changeRequest.subject != ""',
        'space.title == "Handbook" && space.permissions.merge',
        'reviews[.status == "approved" && !.outdated][0]',
        'reviews[.status == "changes-requested" && .outdated == false][0] == null',
        'actor.id != changeRequest.createdBy.id',
        '"a" in ["a", "b"] && changeRequest.number >= 3',
        'reviews[.reviewer.id == "a"][0].status == "approved"',
      ])
        expect([expression, check(expression)]).toEqual([expression, []]);
    });

    it('is unmet when false, with its message or a default naming the expression', () => {
      expect(check('changeRequest.subject == ""', context(), 'A subject is not allowed')).toEqual([
        { rule: 'custom', message: 'A subject is not allowed' },
      ]);
      expect(check('changeRequest.subject == ""')).toEqual([
        { rule: 'custom', message: 'the expression "changeRequest.subject == \\"\\"" is not true' },
      ]);
      // No current approval once the approval is outdated.
      const outdated = context({ reviews: [review('a', 'approved', true)] });
      expect(check('reviews[.status == "approved" && !.outdated][0]', outdated)).toHaveLength(1);
      // A field that is not there reads as undefined: false.
      expect(check('changeRequest.description == "x"')).toHaveLength(1);
    });

    it('a list has no length: .length reads the first item’s field (use [0] for "there is one")', () => {
      expect(check('reviews[.status == "approved"].length >= 1')).toHaveLength(1);
    });

    it('is unmet when the expression throws or there is no context', () => {
      const [thrown] = check('reviews|length > 0');
      expect(thrown.rule).toBe('custom');
      expect(thrown.message).toMatch(/could not be evaluated: .*Transform length is not defined/);
      expect(checkMergeRules(custom('true'), facts()).unmet).toEqual([
        { rule: 'custom', message: 'the expression "true" could not be evaluated (no context)' },
      ]);
    });

    it('reaches nothing outside the context: no globals, no prototypes, no calls', () => {
      for (const expression of [
        'actor.constructor',
        'actor.id.constructor.constructor("return process")()',
        'process',
        'globalThis',
        'this',
        'actor.__proto__',
        'Function("return 1")()',
      ])
        expect([expression, check(expression).length]).toEqual([expression, 1]);
    });

    it('is bypassed like any other rule, and named with the others', () => {
      const rules: MergeRule[] = [
        ...custom('false', 'Never'),
        { rule: 'require_at_least_one_review' },
        { rule: 'allow_bypass', users: [] },
      ];
      const result = checkMergeRules(rules, facts({ context: context(), reviews: [], caller: { userId: 'x', admin: true } }));
      expect(result.bypass).toBe(true);
      expect(describeUnmet(result.unmet)).toBe('Merge rules not met: custom (Never); require_at_least_one_review (no current review)');
    });
  });

  it('names every unmet rule', () => {
    const { unmet } = checkMergeRules([{ rule: 'require_at_least_one_review' }, { rule: 'require_author_to_merge' }], facts());
    expect(describeUnmet(unmet)).toBe(
      'Merge rules not met: require_at_least_one_review (no current review); require_author_to_merge (only the author of the change request may merge it)',
    );
  });
});
