import { expressionHolds, expressionProblem, plainContext } from '../expressions.ts';

/**
 * Conditions of sections and site-spaces (`visitor.claims.unsigned.betaUser == true`) are
 * expressions of the service's sandboxed language (src/domain/expressions.ts), evaluated against
 * the visitor's claims.
 */

/**
 * Why an expression cannot be saved, or null when it is sound. Besides parsing it, it is run once
 * against a visitor without claims: that surfaces what the parser lets through (an unclosed group,
 * an unknown transform or function), while a missing claim only reads as undefined.
 */
export function conditionProblem(expression: string): string | null {
  const problem = expressionProblem(expression, EMPTY_CONTEXT);
  return problem === null ? null : `condition is not a valid expression: ${problem}`;
}

/** The claims of a visitor, as conditions see them: `visitor.claims.<signed>` and `visitor.claims.unsigned.<name>`. */
export interface VisitorClaims {
  signed: Record<string, unknown>;
  unsigned: Record<string, unknown>;
}

/** A context made of plain data only (JSON round trip): no prototypes beyond Object's, no functions. */
export function conditionContext(claims: VisitorClaims): object {
  const data = plainContext({ ...claims.signed, unsigned: claims.unsigned }) as Record<string, unknown>;
  return { visitor: { claims: data } };
}

const EMPTY_CONTEXT = { visitor: { claims: { unsigned: {} } } };

/**
 * Whether a visitor sees an item: no condition, or a condition that evaluates truthy. A condition
 * that fails to evaluate (reads into a claim the visitor does not have, or is past a limit of the
 * language: too long, too deep, or over its step budget, as one saved before the limits may be)
 * hides the item. Outcomes are cached by condition and claims (expressionHolds).
 */
export function conditionHolds(expression: string | null | undefined, context: object): boolean {
  if (expression === null || expression === undefined || expression === '') return true;
  try {
    return expressionHolds(expression, context);
  } catch {
    return false;
  }
}
