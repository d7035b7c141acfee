import jexlModule from 'jexl';
import { cacheBytes, SizedLru } from './lru.ts';
import { entryBytes } from './sizeof.ts';

/**
 * The expression language of the service (site conditions, `{% if %}` blocks, custom merge
 * rules): Jexl's syntax, parsed by Jexl into its AST, and evaluated here by a small evaluator of
 * our own that mirrors Jexl's (`evalSync`) node by node while counting its steps. Jexl's own
 * evaluator has no bound: a filter runs its predicate once per element, so nested filters over
 * literal arrays multiply (`{a:[0,0,0,0,0,0,0,0,0,0]}.a[.a||{a:[…]}.a[.a||…]]` does 10^7
 * evaluations at seven levels, seconds of a synchronous event loop). Here every evaluation stops
 * after EXPRESSION_BUDGET steps with an ExpressionBudgetError.
 *
 * What the language reaches: the context it is given (plain data), and of any value only its own
 * properties (Jexl would also read inherited ones such as `constructor` through brackets); no
 * globals, no function calls (none are registered: a call or transform is an error, as with Jexl).
 * Never `eval`, never `new Function`.
 */

/** The longest expression (GitBook's `Expression`: 1,024 characters). */
export const MAX_EXPRESSION_LENGTH = 1024;
/**
 * How deep an expression may nest: brackets, parentheses and braces in its text, and nodes in its
 * AST (an operator chain `a || b || c` nests one level per operator, so 60 alternatives fit).
 * Jexl's parser slows quadratically with nesting (64 levels parse in about 5 ms, 500 in 50 to
 * 140 ms), and the evaluator recurses once per level.
 */
export const MAX_EXPRESSION_DEPTH = 64;
/**
 * The steps one evaluation may take: every node visited counts one, every element a filter visits
 * one, every element an `in` searches one. A real condition takes a few dozen
 * (`visitor.claims.unsigned.betaUser == true` takes 6; a filter over 100 claims with a
 * 5-node predicate about 600). At the limit an evaluation takes about 1 ms (the 7-level attack
 * on 2 shared cores), where Jexl took 11.7 s for that one; ordinary conditions evaluate in 1 to
 * 3 µs, several times faster than Jexl's evalSync.
 */
export const EXPRESSION_BUDGET = 10_000;

export type ExpressionLimitCode = 'EXPRESSION_TOO_LONG' | 'EXPRESSION_TOO_DEEP' | 'EXPRESSION_TOO_COSTLY';

/** An expression past one of the limits above; `code` says which. */
export class ExpressionLimitError extends Error {
  readonly code: ExpressionLimitCode;

  constructor(code: ExpressionLimitCode, message: string) {
    super(message);
    this.name = 'ExpressionLimitError';
    this.code = code;
  }
}

/** An evaluation that took more than EXPRESSION_BUDGET steps. */
export class ExpressionBudgetError extends ExpressionLimitError {
  constructor() {
    super('EXPRESSION_TOO_COSTLY', `the expression takes more than ${EXPRESSION_BUDGET} steps to evaluate (EXPRESSION_TOO_COSTLY)`);
    this.name = 'ExpressionBudgetError';
  }
}

/** Jexl's AST (jexl/dist/parser/handlers.js makes every node; LogicalExpression is not one of them, but read as a binary one). */
type Node =
  | { type: 'Literal'; value: string | number | boolean }
  | { type: 'Identifier'; value: string; from?: Node; relative?: boolean }
  | { type: 'BinaryExpression' | 'LogicalExpression'; operator: string; left: Node; right: Node }
  | { type: 'UnaryExpression'; operator: string; right: Node }
  | { type: 'ConditionalExpression'; test: Node; consequent?: Node; alternate?: Node }
  | { type: 'ArrayLiteral'; value: Node[] }
  | { type: 'ObjectLiteral'; value: Record<string, Node> }
  | { type: 'FilterExpression'; relative: boolean; expr: Node; subject: Node }
  | { type: 'FunctionCall'; name: string; pool: string; args?: Node[] };

const { Jexl } = jexlModule as unknown as { Jexl: new () => { compile(expression: string): { _getAst(): Node } } };
const jexl = new Jexl();

/**
 * Two caches within the `conditions` share of CACHE_MEMORY, half each, so that neither crowds
 * the other out: parsed expressions (Jexl's AST: about 18 bytes per character of the expression,
 * 1.2 KB for one of 70 characters), and the outcomes of conditions by expression and context.
 */
const half = () => Math.max(1, Math.floor(cacheBytes('conditions') / 2));
type Parsed = { ast: Node; depth: number };
let parsedCache: SizedLru<string, Parsed> | undefined;
const parsed = () => (parsedCache ??= new SizedLru<string, Parsed>(half(), (_p, text) => entryBytes(text, null, 256 + 20 * text.length)));
type Outcome = { holds: boolean } | { error: Error };
let outcomeCache: SizedLru<string, Outcome> | undefined;
const outcomes = () =>
  (outcomeCache ??= new SizedLru<string, Outcome>(half(), (outcome, key) => entryBytes(key, null, 'error' in outcome ? 512 : 32)));

/** The deepest nesting of brackets, parentheses and braces in the text, outside string literals. */
function textDepth(expression: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (c === '"' || c === "'") {
      // As Jexl's lexer reads strings: a backslash escapes the quote; no closing quote leaves the rest to the parser.
      let j = i + 1;
      while (j < expression.length && expression[j] !== c) j += expression[j] === '\\' ? 2 : 1;
      i = j;
    } else if (c === '(' || c === '[' || c === '{') {
      deepest = Math.max(deepest, ++depth);
    } else if (c === ')' || c === ']' || c === '}') {
      depth--;
    }
  }
  return deepest;
}

/** The direct sub-expressions of a node. */
function childrenOf(node: Node): (Node | undefined)[] {
  switch (node.type) {
    case 'Identifier':
      return [node.from];
    case 'BinaryExpression':
    case 'LogicalExpression':
      return [node.left, node.right];
    case 'UnaryExpression':
      return [node.right];
    case 'ConditionalExpression':
      return [node.test, node.consequent, node.alternate];
    case 'ArrayLiteral':
      return node.value;
    case 'ObjectLiteral':
      return Object.values(node.value);
    case 'FilterExpression':
      return [node.subject, node.expr];
    case 'FunctionCall':
      return node.args ?? [];
    default:
      return [];
  }
}

/** The depth of an AST (a lone node: 1), walked without recursion. */
function astDepth(root: Node): number {
  let deepest = 0;
  const stack: [Node, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    for (const child of childrenOf(node)) if (child) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * How far past the limits an expression read back may be: a document's `{% else %}` branch is
 * evaluated as the negation of its condition, `!(…)`, three characters and one level more than
 * the condition that was saved. Anything further (saved before the limits) fails to evaluate.
 */
const READ_SLACK = { length: 8, depth: 2 };

/**
 * The AST of an expression within the static limits (length, nesting), as they apply when it is
 * written (`read`: false) or evaluated; throws a parse error or an ExpressionLimitError.
 */
function compile(expression: string, read: boolean): Node {
  const maxLength = MAX_EXPRESSION_LENGTH + (read ? READ_SLACK.length : 0);
  const maxDepth = MAX_EXPRESSION_DEPTH + (read ? READ_SLACK.depth : 0);
  if (expression.length > maxLength) {
    throw new ExpressionLimitError(
      'EXPRESSION_TOO_LONG',
      `the expression is ${expression.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed (EXPRESSION_TOO_LONG)`,
    );
  }
  let found = parsed().get(expression);
  if (!found) {
    // The text's nesting first: Jexl's parser slows quadratically with it.
    const nesting = textDepth(expression);
    if (nesting > maxDepth) throw tooDeep(nesting);
    const ast = jexl.compile(expression)._getAst();
    found = { ast, depth: Math.max(nesting, astDepth(ast)) };
    parsed().set(expression, found);
  }
  if (found.depth > maxDepth) throw tooDeep(found.depth);
  return found.ast;
}

const tooDeep = (depth: number) =>
  new ExpressionLimitError(
    'EXPRESSION_TOO_DEEP',
    `the expression nests ${depth} levels deep; at most ${MAX_EXPRESSION_DEPTH} are allowed (EXPRESSION_TOO_DEEP)`,
  );

type Value = unknown;

/** `target[key]` for the target's own properties only; reading from undefined or null throws as in JavaScript (and Jexl). */
function member(target: Value, key: Value): Value {
  if (target === undefined || target === null) {
    throw new TypeError(`Cannot read properties of ${String(target)} (reading '${String(key)}')`);
  }
  const name = key as PropertyKey;
  return Object.hasOwn(target as object, name) ? (target as Record<PropertyKey, unknown>)[name] : undefined;
}

/** Jexl's binary operators (jexl/dist/grammar.js), `&&` and `||` apart (they evaluate on demand). */
function binary(operator: string, l: Value, r: Value, run: Run): Value {
  // JavaScript's own operators on whatever the operands are, exactly as Jexl applies them.
  /* eslint-disable @typescript-eslint/no-explicit-any */
  const left = l as any;
  const right = r as any;
  switch (operator) {
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '*':
      return left * right;
    case '/':
      return left / right;
    case '//':
      return Math.floor(left / right);
    case '%':
      return left % right;
    case '^':
      return Math.pow(left, right);
    // Jexl's equality is JavaScript's loose one.
    case '==':
      return left == right; // eslint-disable-line eqeqeq
    case '!=':
      return left != right; // eslint-disable-line eqeqeq
    case '>':
      return left > right;
    case '>=':
      return left >= right;
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case 'in':
      if (typeof right === 'string') return right.indexOf(left) !== -1;
      if (Array.isArray(right)) {
        run.spend(right.length);
        return right.some((element) => element === left);
      }
      return false;
    default:
      throw new Error(`Unknown operator ${operator}`);
  }
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

/** One evaluation: the context, and the steps left. */
class Run {
  private left = EXPRESSION_BUDGET;
  private readonly context: Record<string, unknown>;

  constructor(context: Record<string, unknown>) {
    this.context = context;
  }

  spend(steps: number): void {
    this.left -= steps;
    if (this.left < 0) throw new ExpressionBudgetError();
  }

  /** The value of `node`, with `relative` the element a filter is on (the context outside filters), as Jexl's Evaluator. */
  eval(node: Node, relative: Value): Value {
    if (--this.left < 0) throw new ExpressionBudgetError();
    switch (node.type) {
      case 'Literal':
        return node.value;
      case 'Identifier': {
        if (!node.from) return member(node.relative ? relative : this.context, node.value);
        let from = this.eval(node.from, relative);
        if (from === undefined || from === null) return undefined;
        if (Array.isArray(from)) from = from[0];
        return member(from, node.value);
      }
      case 'BinaryExpression':
      case 'LogicalExpression': {
        if (node.operator === '&&' || node.operator === '||') {
          const left = this.eval(node.left, relative);
          if (node.operator === '&&' ? !left : left) return left;
          return this.eval(node.right, relative);
        }
        const left = this.eval(node.left, relative);
        return binary(node.operator, left, this.eval(node.right, relative), this);
      }
      case 'UnaryExpression':
        if (node.operator !== '!') throw new Error(`Unknown operator ${node.operator}`);
        return !this.eval(node.right, relative);
      case 'ConditionalExpression': {
        const test = this.eval(node.test, relative);
        if (test) return node.consequent ? this.eval(node.consequent, relative) : test;
        if (!node.alternate) throw new Error('Corrupt AST: a conditional without an alternate');
        return this.eval(node.alternate, relative);
      }
      case 'ArrayLiteral':
        return node.value.map((element) => this.eval(element, relative));
      case 'ObjectLiteral': {
        const result: Record<string, unknown> = {};
        for (const key in node.value) {
          const value = this.eval(node.value[key]!, relative);
          // An own property always, even for a key `__proto__` (an assignment would set the prototype).
          if (key === '__proto__') Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
          else result[key] = value;
        }
        return result;
      }
      case 'FilterExpression': {
        const subject = this.eval(node.subject, relative);
        if (node.relative) {
          const elements: Value[] = Array.isArray(subject) ? subject : subject === undefined ? [] : [subject];
          const kept: Value[] = [];
          for (const element of elements) {
            this.spend(1);
            // As Jexl: a falsy element (0, '', null) leaves the relative context at the root.
            if (this.eval(node.expr, element || this.context)) kept.push(element);
          }
          return kept;
        }
        const key = this.eval(node.expr, relative);
        if (typeof key === 'boolean') return key ? subject : undefined;
        return member(subject, key);
      }
      case 'FunctionCall':
        if (node.pool === 'transforms') throw new Error(`Transform ${node.name} is not defined.`);
        if (node.pool === 'functions') throw new Error(`Jexl Function ${node.name} is not defined.`);
        throw new Error(`Corrupt AST: Pool '${node.pool}' not found`);
      default:
        throw new Error(`Corrupt AST: unknown node ${(node as { type: string }).type}`);
    }
  }
}

function run(ast: Node, context: object | null | undefined): Value {
  const root = (context ?? {}) as Record<string, unknown>;
  return new Run(root).eval(ast, root);
}

/**
 * Why an expression cannot be saved, or null when it is sound: past a static limit (length,
 * nesting), a parse error, or an error of a trial run against `emptyContext` within the step
 * budget. The trial surfaces what the parser lets through (an unknown transform or function) and
 * expressions whose cost does not depend on the context, while a missing field only reads as
 * undefined.
 */
export function expressionProblem(expression: string, emptyContext: object): string | null {
  try {
    run(compile(expression, false), emptyContext);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The value of an expression against a context of plain data; throws when it cannot be evaluated
 * (an ExpressionLimitError past the step budget, or past the static limits with READ_SLACK).
 */
export function evaluateExpression(expression: string, context: object): unknown {
  return run(compile(expression, true), context);
}

/** Contexts whose outcomes are not cached: their key alone would take a good part of the cache. */
const MAX_CONTEXT_KEY = 16 * 1024;
/** Each context's stable serialization, computed once per context object (contexts are not changed once built). */
const contextKeys = new WeakMap<object, string | null>();

/** JSON of plain data with object keys sorted, so that two equal contexts have one key; null when it cannot be made. */
function contextKey(context: object): string | null {
  let key = contextKeys.get(context);
  if (key === undefined) {
    try {
      key = JSON.stringify(context, (_name, value: unknown) =>
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
          : value,
      );
      if (key.length > MAX_CONTEXT_KEY) key = null;
    } catch {
      key = null;
    }
    contextKeys.set(context, key);
  }
  return key;
}

/**
 * Whether an expression holds (evaluates truthy) against a context of plain data; throws as
 * evaluateExpression does. Each outcome (an error included) is cached by the expression and a
 * stable serialization of the context, so the conditions of repeated reads with the same claims
 * are evaluated once.
 */
export function expressionHolds(expression: string, context: object): boolean {
  const serialized = contextKey(context);
  const key = serialized === null ? null : `${expression}\u0000${serialized}`;
  let outcome = key === null ? undefined : outcomes().get(key);
  if (!outcome) {
    try {
      outcome = { holds: Boolean(evaluateExpression(expression, context)) };
    } catch (error) {
      outcome = { error: error as Error };
    }
    if (key !== null) outcomes().set(key, outcome);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.holds;
}

/** A context made of plain data only (JSON round trip): no prototypes beyond Object's, no functions. */
export function plainContext<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
