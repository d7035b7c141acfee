import { evaluateExpression, expressionProblem, MAX_EXPRESSION_LENGTH } from './expressions.ts';

/**
 * Merge rules (GitBook's `MergeRules`): what must hold before a change request merges. An
 * organization's configuration is `none` or `rules`; a space's is also `inherit` (the default),
 * which takes the organization's.
 */

export const USER_RULES = ['require_specific_reviewers', 'require_one_of_specific_reviewers', 'allow_bypass'] as const;
export const PLAIN_RULES = [
  'require_at_least_one_review',
  'require_at_least_one_approved_review',
  'require_all_reviews_approved',
  'require_up_to_date_change_request',
  'require_change_request_subject',
  'require_change_request_description',
  'require_author_to_merge',
] as const;
/** Kinds GitBook's document names that this service does not evaluate. */
const UNSUPPORTED: Record<string, string> = {
  require_agent_review: 'require_agent_review merge rules are not supported',
};

export type UserRuleKind = (typeof USER_RULES)[number];
export type PlainRuleKind = (typeof PLAIN_RULES)[number];
/** A `custom` rule: an expression of the sandboxed language (src/domain/expressions.ts) that must hold. */
export type CustomRule = { rule: 'custom'; expression: string; message?: string };
export type MergeRule = { rule: UserRuleKind; users: string[] } | { rule: PlainRuleKind } | CustomRule;

/** The longest expression a custom rule may have (GitBook's `Expression`), as for every expression. */
export { MAX_EXPRESSION_LENGTH };

/**
 * What a custom rule's expression sees: GitBook's `MergeRulesEvaluationContext` (the space, the
 * change request and its reviews as the API presents them, and the merging user as GitBook's
 * `User`), as plain data.
 */
export interface MergeRulesEvaluationContext {
  space: object;
  changeRequest: object;
  reviews: object[];
  actor: object;
}

/** The context a custom expression is tried against when it is saved. */
const EMPTY_CONTEXT: MergeRulesEvaluationContext = { space: {}, changeRequest: {}, reviews: [], actor: {} };
export type MergeRulesConfig = { type: 'inherit' } | { type: 'none' } | { type: 'rules'; rules: MergeRule[] };

/** What is kept on a change request merged past unmet rules. */
export interface MergeBypass {
  by: string;
  at: string;
  rules: string[];
}

/** A configuration as the request body states it, before validation. */
export interface MergeRulesInput {
  type: string;
  rules?: { rule: string; users?: string[]; expression?: unknown; message?: string; [key: string]: unknown }[];
}

export class MergeRulesError extends Error {}

const isUserRule = (rule: string): rule is UserRuleKind => (USER_RULES as readonly string[]).includes(rule);
const isPlainRule = (rule: string): rule is PlainRuleKind => (PLAIN_RULES as readonly string[]).includes(rule);

/**
 * A configuration checked and normalized; throws MergeRulesError with a message for the caller.
 * `inherit` is only for spaces.
 */
export function parseMergeRules(input: MergeRulesInput, scope: 'organization' | 'space'): MergeRulesConfig {
  const types = scope === 'space' ? ['inherit', 'none', 'rules'] : ['none', 'rules'];
  if (!types.includes(input.type))
    throw new MergeRulesError(
      `mergeRules.type must be one of ${types.join(', ')} for ${scope === 'space' ? 'a space' : 'an organization'}`,
    );
  if (input.type !== 'rules') {
    if (input.rules !== undefined) throw new MergeRulesError(`mergeRules.rules is only allowed with type "rules"`);
    return { type: input.type === 'inherit' ? 'inherit' : 'none' };
  }
  if (input.rules === undefined) throw new MergeRulesError('mergeRules.rules is required with type "rules"');
  const rules = input.rules.map((r, i): MergeRule => {
    const where = `mergeRules.rules[${i}]`;
    if (UNSUPPORTED[r.rule]) throw new MergeRulesError(`${where}: ${UNSUPPORTED[r.rule]}`);
    if (isUserRule(r.rule)) {
      if (r.users === undefined) throw new MergeRulesError(`${where}: ${r.rule} needs users (a list of user ids)`);
      if (r.users.length === 0 && r.rule !== 'allow_bypass') throw new MergeRulesError(`${where}: ${r.rule} needs at least one user`);
      const extra = Object.keys(r).filter((k) => k !== 'rule' && k !== 'users');
      if (extra.length) throw new MergeRulesError(`${where}: ${r.rule} takes no ${extra.join(', ')}`);
      return { rule: r.rule, users: [...new Set(r.users)] };
    }
    if (isPlainRule(r.rule)) {
      const extra = Object.keys(r).filter((k) => k !== 'rule');
      if (extra.length) throw new MergeRulesError(`${where}: ${r.rule} takes no parameters (got ${extra.join(', ')})`);
      return { rule: r.rule };
    }
    if (r.rule === 'custom') return parseCustomRule(r, where);
    throw new MergeRulesError(`${where}: unknown rule "${r.rule}"; known rules: ${[...USER_RULES, ...PLAIN_RULES, 'custom'].join(', ')}`);
  });
  return { type: 'rules', rules };
}

/**
 * A custom rule as stated: a non-empty expression of at most MAX_EXPRESSION_LENGTH characters
 * that parses, and runs once against an empty context (which surfaces an unknown transform or
 * function the parser lets through); an optional message.
 */
function parseCustomRule(r: NonNullable<MergeRulesInput['rules']>[number], where: string): CustomRule {
  const extra = Object.keys(r).filter((k) => k !== 'rule' && k !== 'expression' && k !== 'message');
  if (extra.length) throw new MergeRulesError(`${where}: custom takes only expression and message (got ${extra.join(', ')})`);
  const { expression, message } = r;
  if (expression === undefined) throw new MergeRulesError(`${where}: custom needs an expression`);
  if (typeof expression !== 'string') throw new MergeRulesError(`${where}.expression must be a string`);
  if (expression.length > MAX_EXPRESSION_LENGTH)
    throw new MergeRulesError(`${where}.expression is ${expression.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed`);
  if (!expression.trim()) throw new MergeRulesError(`${where}.expression is empty`);
  const problem = expressionProblem(expression, EMPTY_CONTEXT);
  if (problem !== null) throw new MergeRulesError(`${where}.expression is not a valid expression: ${problem}`);
  return { rule: 'custom', expression, ...(message !== undefined ? { message } : {}) };
}

/** Whether the rules include custom expressions, which need an evaluation context. */
export function needsEvaluationContext(rules: MergeRule[]): boolean {
  return rules.some((r) => r.rule === 'custom');
}

/** The rules that apply in a space: its own when `rules` or `none`, else its organization's. */
export function effectiveMergeRules(organization: MergeRulesConfig | null, space: MergeRulesConfig | null): MergeRule[] {
  const config = space && space.type !== 'inherit' ? space : organization;
  return config?.type === 'rules' ? config.rules : [];
}

/** What the rules look at. `reviews` are every review with whether it is outdated. */
export interface MergeFacts {
  changeRequest: { subject: string; description: string; createdBy: string | null };
  reviews: { reviewerId: string | null; status: 'approved' | 'changes-requested'; outdated: boolean }[];
  /** Reviewers asked for who have not answered. */
  requestedReviewers: string[];
  /** The user merging, and whether they administer the space. */
  caller: { userId: string; admin: boolean };
  /** The change request's base is the space's current revision. */
  upToDate: boolean;
  /** What custom expressions see; needed when the rules have any (see needsEvaluationContext). */
  context?: MergeRulesEvaluationContext;
}

export interface UnmetRule {
  rule: string;
  message: string;
}

export interface MergeCheck {
  unmet: UnmetRule[];
  /** Unmet rules exist and the caller may merge past them (`allow_bypass`). */
  bypass: boolean;
}

/**
 * Evaluates the rules. Only current reviews (not outdated) count: an edit after an approval, or
 * the reviewer reviewing again or being asked again, sets the approval aside.
 */
export function checkMergeRules(rules: MergeRule[], facts: MergeFacts): MergeCheck {
  const current = facts.reviews.filter((r) => !r.outdated);
  const approvedBy = new Set(current.filter((r) => r.status === 'approved').map((r) => r.reviewerId));
  const unmet: UnmetRule[] = [];
  const fail = (rule: string, message: string) => unmet.push({ rule, message });
  for (const r of rules) {
    switch (r.rule) {
      case 'require_specific_reviewers': {
        const missing = r.users.filter((u) => !approvedBy.has(u));
        if (missing.length) fail(r.rule, `approval needed from ${missing.join(', ')}`);
        break;
      }
      case 'require_one_of_specific_reviewers':
        if (!r.users.some((u) => approvedBy.has(u))) fail(r.rule, `approval needed from one of ${r.users.join(', ')}`);
        break;
      case 'require_at_least_one_review':
        if (current.length === 0) fail(r.rule, 'no current review');
        break;
      case 'require_at_least_one_approved_review':
        if (approvedBy.size === 0) fail(r.rule, 'no current approved review');
        break;
      case 'require_all_reviews_approved': {
        const notApproved = current.filter((v) => v.status !== 'approved').length;
        if (notApproved) fail(r.rule, `${notApproved} current review(s) request changes`);
        else if (facts.requestedReviewers.length) fail(r.rule, `review still requested from ${facts.requestedReviewers.join(', ')}`);
        break;
      }
      case 'require_up_to_date_change_request':
        if (!facts.upToDate) fail(r.rule, 'the space has changed since; update the change request first');
        break;
      case 'require_change_request_subject':
        if (!facts.changeRequest.subject.trim()) fail(r.rule, 'the change request has no subject');
        break;
      case 'require_change_request_description':
        if (!facts.changeRequest.description.trim()) fail(r.rule, 'the change request has no description');
        break;
      case 'require_author_to_merge':
        if (facts.changeRequest.createdBy !== facts.caller.userId) fail(r.rule, 'only the author of the change request may merge it');
        break;
      case 'custom': {
        const problem = customRuleProblem(r.expression, facts.context);
        if (problem !== null) fail(r.rule, r.message || problem);
        break;
      }
      case 'allow_bypass':
        break;
    }
  }
  const bypass =
    unmet.length > 0 &&
    facts.caller.admin &&
    rules.some((r) => r.rule === 'allow_bypass' && (r.users.length === 0 || r.users.includes(facts.caller.userId)));
  return { unmet, bypass };
}

/**
 * Null when a custom expression holds (evaluates truthy) against the context, else why not. An
 * expression that cannot be evaluated does not hold, one over the language's step budget
 * included (an ExpressionBudgetError: stopped after EXPRESSION_BUDGET steps).
 */
function customRuleProblem(expression: string, context: MergeRulesEvaluationContext | undefined): string | null {
  const named = `the expression ${JSON.stringify(expression)}`;
  if (!context) return `${named} could not be evaluated (no context)`;
  try {
    return evaluateExpression(expression, context) ? null : `${named} is not true`;
  } catch (error) {
    return `${named} could not be evaluated: ${(error as Error).message}`;
  }
}

/** The refusal's message, naming every unmet rule. */
export function describeUnmet(unmet: UnmetRule[]): string {
  return `Merge rules not met: ${unmet.map((u) => `${u.rule} (${u.message})`).join('; ')}`;
}
