import { evaluateExpression, expressionProblem, plainContext } from '../expressions.ts';

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
 * that fails to evaluate (or reads a claim the visitor does not have) hides the item.
 */
export function conditionHolds(expression: string | null | undefined, context: object): boolean {
  if (expression === null || expression === undefined || expression === '') return true;
  try {
    return Boolean(evaluateExpression(expression, context));
  } catch {
    return false;
  }
}
