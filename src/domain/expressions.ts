import jexlModule from 'jexl';
import { sharedCache } from './lru.ts';
import { entryBytes } from './sizeof.ts';

/**
 * The expression language of the service (site conditions, custom merge rules): Jexl, a
 * maintained language that parses to an AST and evaluates it against the context it is given,
 * with no access to the host's globals and no function calls beyond the transforms registered
 * (none here). Never `eval`, never `new Function`.
 */

type Expression = { evalSync(context?: object): unknown };
const { Jexl } = jexlModule as unknown as { Jexl: new () => { compile(expression: string): Expression } };
const jexl = new Jexl();

/**
 * Expressions compiled by this process (least recently used first out), shared by every use,
 * within the `conditions` share of CACHE_MEMORY. A compiled expression (Jexl's AST and its
 * compiled form) measured about 18 bytes per character of the expression: 1.2 KB for one of 70
 * characters.
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
 * The parse or evaluation error of an expression run once against `emptyContext`, or null when
 * it is sound. Running it surfaces what the parser lets through (an unclosed group, an unknown
 * transform or function), while a missing field only reads as undefined.
 */
export function expressionProblem(expression: string, emptyContext: object): string | null {
  try {
    compile(expression).evalSync(emptyContext);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The value of an expression against a context of plain data; throws when it cannot be evaluated. */
export function evaluateExpression(expression: string, context: object): unknown {
  return compile(expression).evalSync(context);
}

/** A context made of plain data only (JSON round trip): no prototypes beyond Object's, no functions. */
export function plainContext<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
