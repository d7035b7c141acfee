import jexlModule from 'jexl';
import { sharedCache } from '../lru.ts';
import { entryBytes } from '../sizeof.ts';

/**
 * Conditions of sections and site-spaces (`visitor.claims.unsigned.betaUser == true`) are Jexl
 * expressions: a maintained expression language that parses to an AST and evaluates it against
 * the context it is given, with no access to the host's globals and no function calls beyond the
 * transforms registered (none here). Never `eval`, never `new Function`.
 */

type Expression = { evalSync(context?: object): unknown };
const { Jexl } = jexlModule as unknown as { Jexl: new () => { compile(expression: string): Expression } };
const jexl = new Jexl();

/**
 * Expressions compiled by this process (least recently used first out), within the `conditions`
 * share of CACHE_MEMORY. A compiled expression (Jexl's AST and its compiled form) measured about
 * 18 bytes per character of the expression: 1.2 KB for one of 70 characters.
 */
const compiled = sharedCache<string, Expression>('conditions', (_expression, text) => entryBytes(text, null, 256 + 20 * text.length));

function compile(expression: string): Expression {
  let found = compiled().get(expression);
  if (!found) {
    found = jexl.compile(expression);
    compiled().set(expression, found);
  }
  return found;
}

/**
 * Why an expression cannot be saved, or null when it is sound. Besides parsing it, it is run once
 * against a visitor without claims: that surfaces what the parser lets through (an unclosed group,
 * an unknown transform or function), while a missing claim only reads as undefined.
 */
export function conditionProblem(expression: string): string | null {
  try {
    compile(expression).evalSync(EMPTY_CONTEXT);
    return null;
  } catch (error) {
    return `condition is not a valid expression: ${(error as Error).message}`;
  }
}

/** The claims of a visitor, as conditions see them: `visitor.claims.<signed>` and `visitor.claims.unsigned.<name>`. */
export interface VisitorClaims {
  signed: Record<string, unknown>;
  unsigned: Record<string, unknown>;
}

/** A context made of plain data only (JSON round trip): no prototypes beyond Object's, no functions. */
export function conditionContext(claims: VisitorClaims): object {
  const data = JSON.parse(JSON.stringify({ ...claims.signed, unsigned: claims.unsigned })) as Record<string, unknown>;
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
    return Boolean(compile(expression).evalSync(context));
  } catch {
    return false;
  }
}
