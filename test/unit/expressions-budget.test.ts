import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import jexlModule from 'jexl';
import {
  EXPRESSION_BUDGET,
  ExpressionBudgetError,
  ExpressionLimitError,
  evaluateExpression,
  expressionHolds,
  expressionProblem,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
} from '../../src/domain/expressions.ts';
import { conditionContext, conditionHolds, conditionProblem } from '../../src/domain/sites/conditions.ts';
import { checkMergeRules, parseMergeRules, type MergeRule } from '../../src/domain/merge-rules.ts';

/**
 * The expression language's own evaluator against Jexl's (`evalSync`, which it replaces): the same
 * values and the same failures on ordinary expressions, and a bounded cost on hostile ones.
 */

const { Jexl } = jexlModule as unknown as { Jexl: new () => { compile(expression: string): { evalSync(context: object): unknown } } };
const jexl = new Jexl();

type Outcome = { value: unknown } | { threw: true };
function outcome(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch {
    return { threw: true };
  }
}
const ours = (expression: string, context: object) => outcome(() => evaluateExpression(expression, context));
const theirs = (expression: string, context: object) => outcome(() => jexl.compile(expression).evalSync(context));

/** The attack: each level a filter over ten literal zeros whose predicate is the next level (10^levels evaluations). */
const nested = (levels: number): string => (levels === 0 ? '0' : `{a:[0,0,0,0,0,0,0,0,0,0]}.a[.a||${nested(levels - 1)}]`);

const claims = conditionContext({
  signed: { plan: 'pro', age: 30, count: 7, roles: ['a', 'b'], tags: ['x', '', 'y'], teams: [{ name: 'core', size: 3 }, { name: 'docs' }] },
  unsigned: { betaUser: true, zero: 0, empty: '' },
});
const mergeContext = {
  space: { visibility: 'public', title: 'Docs' },
  changeRequest: { subject: 'Fix', description: '', number: 4 },
  reviews: [
    { status: 'approved', reviewer: { id: 'u1' } },
    { status: 'changes-requested', reviewer: { id: 'u2' } },
  ],
  actor: { id: 'u3', email: 'a@example.com' },
};

const CORPUS: [string, object][] = [
  ['visitor.claims.unsigned.betaUser == true', claims],
  ['visitor.claims.plan == "pro" && visitor.claims.unsigned.betaUser', claims],
  ['visitor.claims.plan == "free" || visitor.claims.age >= 18', claims],
  ['"a" in visitor.claims.roles', claims],
  ['"c" in visitor.claims.roles', claims],
  ['"ro" in visitor.claims.plan', claims],
  ['!visitor.claims.unsigned.betaUser', claims],
  ['visitor.claims.age >= 18 && visitor.claims.age < 65', claims],
  ['visitor.claims.count // 2 == 3', claims],
  ['(1 + 2) * 3 ^ 2 % 5 - 4 / 8', claims],
  ['"ab" + visitor.claims.plan', claims],
  ['visitor.claims.missing', claims],
  ['visitor.claims.missing.deep', claims],
  ['visitor.claims.unsigned.missing.deep.er', claims],
  ['visitor.claims.roles[0]', claims],
  ['visitor.claims.roles[5]', claims],
  ['visitor.claims["plan"]', claims],
  ['visitor.claims.roles[true]', claims],
  ['visitor.claims.roles[false]', claims],
  ['visitor.claims.roles.length', claims],
  ['visitor.claims.plan.length', claims],
  ['visitor.claims.tags[. == "x"]', claims],
  ['visitor.claims.tags[.length > 0]', claims],
  ['visitor.claims.teams[.name == "core"].size', claims],
  ['visitor.claims.teams[.size > 2]', claims],
  ['visitor.claims.teams[.size].name', claims],
  ['visitor.claims.plan[.length == 3]', claims],
  ['visitor.claims.missing[.x]', claims],
  ['visitor.claims.unsigned.zero[.unsigned]', claims],
  ['{a:[0,0,1]}.a[.a||1]', claims],
  ['{a:[0,"",2,3]}.a[.visitor]', claims],
  ['[1, "two", [3], {four: 4}]', claims],
  ['{x: visitor.claims.plan, y: [visitor.claims.age]}', claims],
  ['{x: 1}.x', claims],
  ['visitor.claims.unsigned.betaUser ? "beta" : "stable"', claims],
  ['visitor.claims.unsigned.zero ? "yes" : "no"', claims],
  ['visitor.claims.unsigned.missing ?: "default"', claims],
  ['visitor.claims.plan ?: "default"', claims],
  ['.visitor.claims.plan', claims],
  ['visitor.claims.unsigned.empty == ""', claims],
  ['visitor.claims.age == "30"', claims],
  ['visitor.claims.age != 30', claims],
  ['visitor.claims.roles == "a,b"', claims],
  ['1 - -1', claims],
  ['-visitor.claims.age', claims],
  ['[].x', claims],
  ['visitor.claims.missing["x"]', claims],
  ['visitor.claims.roles|length', claims],
  ['length(visitor.claims.roles)', claims],
  ['visitor.claims ==== 1', claims],
  ['(', claims],
  ['changeRequest.subject != ""', mergeContext],
  ['changeRequest.description == ""', mergeContext],
  ['reviews[.status == "approved"].reviewer.id == "u1"', mergeContext],
  ['reviews[.reviewer.id == actor.id]', mergeContext],
  ['actor.email in ["a@example.com", "b@example.com"]', mergeContext],
  ['space.visibility == "public" && changeRequest.number > 3', mergeContext],
  ['reviews[1].status', mergeContext],
  ['reviews.status', mergeContext],
];

describe('the evaluator, against Jexl', () => {
  it('gives the same value, or the same failure, on a corpus of ordinary expressions', () => {
    for (const [expression, context] of CORPUS) {
      expect([expression, ours(expression, context)]).toEqual([expression, theirs(expression, context)]);
    }
  });

  it('gives the same value, or the same failure, on generated expressions and contexts', () => {
    const keys = ['a', 'b', 'c', 'd'];
    const key = fc.constantFrom(...keys);
    const path = fc.array(key, { minLength: 1, maxLength: 3 }).map((ks) => ks.join('.'));
    const literal = fc.oneof(
      fc.integer({ min: -3, max: 12 }).map(String),
      fc.constantFrom('0.5', '"x"', '""', '"ab"', "'a'", 'true', 'false'),
    );
    const { expr } = fc.letrec<{ expr: string }>((tie) => ({
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        literal,
        path,
        path.map((p) => `.${p}`),
        fc
          .tuple(
            tie('expr'),
            fc.constantFrom('+', '-', '*', '/', '//', '%', '^', '==', '!=', '<', '<=', '>', '>=', '&&', '||', 'in'),
            tie('expr'),
          )
          .map(([l, op, r]) => `(${l}) ${op} (${r})`),
        tie('expr').map((e) => `!(${e})`),
        fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([t, c, a]) => `(${t}) ? (${c}) : (${a})`),
        fc.tuple(tie('expr'), tie('expr')).map(([t, a]) => `(${t}) ?: (${a})`),
        fc.array(tie('expr'), { maxLength: 3 }).map((es) => `[${es.join(', ')}]`),
        fc.array(fc.tuple(key, tie('expr')), { maxLength: 3 }).map((kvs) => `{${kvs.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
        fc.tuple(path, tie('expr'), fc.option(path, { nil: undefined })).map(([p, e, after]) => `${p}[${e}]${after ? `.${after}` : ''}`),
      ),
    }));
    const { json } = fc.letrec<{ json: unknown }>((tie) => ({
      json: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(0, 1, 2, -1, 0.5, '', 'x', 'ab', 'a', true, false, null),
        fc.array(tie('json'), { maxLength: 4 }),
        fc.dictionary(key, tie('json'), { maxKeys: 4 }),
      ),
    }));
    const context = fc.dictionary(key, json, { maxKeys: 4 });
    let parsed = 0;
    fc.assert(
      fc.property(expr, context, (expression, ctx) => {
        const expected = theirs(expression, ctx);
        if ('value' in expected) parsed++;
        expect(ours(expression, ctx)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
    // Most generated expressions evaluate: the comparison is not only of failures.
    expect(parsed).toBeGreaterThan(1000);
  });

  it('reads own properties only, where Jexl would read inherited ones through brackets', () => {
    expect(theirs('visitor["constructor"]', claims)).toEqual({ value: Object });
    expect(ours('visitor["constructor"]', claims)).toEqual({ value: undefined });
    expect(ours('visitor.claims.plan["toString"]', claims)).toEqual({ value: undefined });
    expect(conditionHolds('visitor["constructor"]["constructor"]', claims)).toBe(false);
  });
});

describe('the step budget', () => {
  it('stops the 7-level nested filter with EXPRESSION_TOO_COSTLY', () => {
    const attack = nested(7);
    expect(attack).toHaveLength(232);
    let caught: unknown;
    try {
      evaluateExpression(attack, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ExpressionBudgetError);
    expect(caught).toBeInstanceOf(ExpressionLimitError);
    expect((caught as ExpressionBudgetError).code).toBe('EXPRESSION_TOO_COSTLY');
    expect((caught as Error).message).toContain(`more than ${EXPRESSION_BUDGET} steps`);
  });

  it('lets the shallow levels of the same shape evaluate as Jexl does', () => {
    for (const levels of [1, 2]) expect(ours(nested(levels), {})).toEqual(theirs(nested(levels), {}));
    expect(() => evaluateExpression(nested(4), {})).toThrow(ExpressionBudgetError);
  });

  it('bounds what the context brings: a filter or an `in` over a huge claim', () => {
    const huge = conditionContext({
      signed: { list: Array.from({ length: 20_000 }, (_, i) => ({ v: i })), ids: Array.from({ length: 20_000 }, (_, i) => i) },
      unsigned: {},
    });
    expect(() => evaluateExpression('visitor.claims.list[.v == 1]', huge)).toThrow(ExpressionBudgetError);
    expect(() => evaluateExpression('-1 in visitor.claims.ids', huge)).toThrow(ExpressionBudgetError);
    expect(conditionHolds('visitor.claims.list[.v == 1]', huge)).toBe(false);
    // The same expressions over an ordinary claim evaluate.
    const small = conditionContext({ signed: { list: [{ v: 1 }, { v: 2 }], ids: [1, 2, 3] }, unsigned: {} });
    expect(evaluateExpression('visitor.claims.list[.v == 1]', small)).toEqual([{ v: 1 }]);
    expect(conditionHolds('2 in visitor.claims.ids', small)).toBe(true);
  });

  it('hides a stored condition over the budget, and refuses it when saved', () => {
    expect(conditionHolds(nested(7), claims)).toBe(false);
    expect(conditionProblem(nested(7))).toMatch(/^condition is not a valid expression: .*EXPRESSION_TOO_COSTLY/);
    expect(expressionProblem(nested(6), {})).toMatch(/EXPRESSION_TOO_COSTLY/);
    // A condition whose cost depends on the claims passes the trial, and is bounded when read.
    const gated = `visitor.claims.unsigned.go ? ${nested(6)} : false`;
    expect(conditionProblem(gated)).toBeNull();
    expect(conditionHolds(gated, conditionContext({ signed: {}, unsigned: { go: true } }))).toBe(false);
  });

  it('refuses a custom merge rule over the budget when saved', () => {
    expect(() => parseMergeRules({ type: 'rules', rules: [{ rule: 'custom', expression: nested(6) }] }, 'space')).toThrow(
      /^mergeRules\.rules\[0\]\.expression is not a valid expression: .*EXPRESSION_TOO_COSTLY/,
    );
  });
});

describe('static limits', () => {
  it('refuses an expression longer than MAX_EXPRESSION_LENGTH', () => {
    const longest = `"${'x'.repeat(MAX_EXPRESSION_LENGTH - 2)}"`;
    expect(expressionProblem(longest, {})).toBeNull();
    expect(expressionProblem(`${longest} `, {})).toMatch(/1025 characters long; at most 1024 are allowed \(EXPRESSION_TOO_LONG\)/);
    // When evaluated, a few characters more: a document's else branch is its condition negated.
    expect(evaluateExpression(`!(${longest})`, {})).toBe(false);
    expect(() => evaluateExpression(`${longest}${' '.repeat(16)}`, {})).toThrow(expect.objectContaining({ code: 'EXPRESSION_TOO_LONG' }));
    // A longer one evaluated first is still refused when saved.
    expect(expressionProblem(`!(${longest})`, {})).toMatch(/EXPRESSION_TOO_LONG/);
  });

  it('refuses nesting deeper than MAX_EXPRESSION_DEPTH, in the text and in the tree', () => {
    const brackets = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(expressionProblem(brackets(MAX_EXPRESSION_DEPTH - 1), {})).toBeNull();
    expect(expressionProblem(brackets(MAX_EXPRESSION_DEPTH + 1), {})).toMatch(
      /nests 65 levels deep; at most 64 are allowed \(EXPRESSION_TOO_DEEP\)/,
    );
    const deepest = brackets(MAX_EXPRESSION_DEPTH);
    expect(evaluateExpression(`!(${deepest})`, {})).toBe(false);
    expect(expressionProblem(`!(${deepest})`, {})).toMatch(/EXPRESSION_TOO_DEEP/);
    expect(() => evaluateExpression(brackets(MAX_EXPRESSION_DEPTH + 10), {})).toThrow(
      expect.objectContaining({ code: 'EXPRESSION_TOO_DEEP' }),
    );
    const parens = `${'('.repeat(500)}1${')'.repeat(500)}`;
    expect(expressionProblem(parens, {})).toMatch(/EXPRESSION_TOO_DEEP/);
    // Brackets inside strings are text.
    expect(expressionProblem(`"${'['.repeat(100)}" == "x"`, {})).toBeNull();
    // An operator chain nests one level per operator.
    const chain = (n: number) => Array.from({ length: n }, (_, i) => `a == ${i}`).join(' || ');
    expect(expressionProblem(chain(60), {})).toBeNull();
    expect(expressionProblem(chain(80), {})).toMatch(/EXPRESSION_TOO_DEEP/);
  });
});

describe('the cache of outcomes', () => {
  /** A context whose every read of `visitor` is counted (a probe, not a stand-in: the value is plain data). */
  function probed(claims: object) {
    const seen = { reads: 0 };
    const context = {};
    Object.defineProperty(context, 'visitor', {
      enumerable: true,
      get() {
        seen.reads++;
        return { claims };
      },
    });
    return { context, seen };
  }

  it('evaluates an (expression, claims) pair once, whatever the order of the claims', () => {
    const expression = 'visitor.claims.plan == "enterprise" && visitor.claims.seats > 10';
    const first = probed({ plan: 'enterprise', seats: 12 });
    expect(expressionHolds(expression, first.context)).toBe(true);
    expect(expressionHolds(expression, first.context)).toBe(true);
    // One read to make its key, two to evaluate it (one per operand); the second call read nothing.
    expect(first.seen.reads).toBe(3);
    const again = probed({ seats: 12, plan: 'enterprise' });
    expect(expressionHolds(expression, again.context)).toBe(true);
    // Equal claims: its key is made, the outcome is the cached one.
    expect(again.seen.reads).toBe(1);
    const other = probed({ plan: 'enterprise', seats: 3 });
    expect(expressionHolds(expression, other.context)).toBe(false);
    expect(other.seen.reads).toBe(3);
  });

  it('caches failures too: an over-budget condition read again costs no evaluation', () => {
    const first = probed({ plan: 'x' });
    const attack = `visitor.claims.plan == "x" && ${nested(7)}`;
    expect(() => expressionHolds(attack, first.context)).toThrow(ExpressionBudgetError);
    const reads = first.seen.reads;
    const again = probed({ plan: 'x' });
    expect(() => expressionHolds(attack, again.context)).toThrow(ExpressionBudgetError);
    expect(again.seen.reads).toBe(1);
    expect(reads).toBe(2);
  });
});

describe('merge rules', () => {
  it('fail a custom rule whose evaluation runs over the budget, naming the limit', () => {
    // Cheap against the empty context it is tried on when saved; over the budget for this actor.
    const gated = `actor.id == "u3" ? ${nested(6)} : true`;
    const config = parseMergeRules({ type: 'rules', rules: [{ rule: 'custom', expression: gated }] }, 'space');
    const rules = (config as { rules: MergeRule[] }).rules;
    const facts = {
      changeRequest: { subject: 'Fix', description: '', createdBy: 'u3' },
      reviews: [],
      requestedReviewers: [],
      caller: { userId: 'u3', admin: false },
      upToDate: true,
      context: mergeContext,
    };
    const { unmet } = checkMergeRules(rules, facts);
    expect(unmet).toHaveLength(1);
    expect(unmet[0]!.rule).toBe('custom');
    expect(unmet[0]!.message).toMatch(/could not be evaluated: .*more than 10000 steps .*EXPRESSION_TOO_COSTLY/);
    expect(checkMergeRules(rules, { ...facts, context: { ...mergeContext, actor: { id: 'u4' } } }).unmet).toEqual([]);
  });
});
