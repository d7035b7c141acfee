/**
 * Rison (the compact JSON for URLs GitBook's API takes a preview's visitor claims in): objects
 * `(a:1,b:'x y')`, arrays `!(1,2)`, `!t` `!f` `!n`, strings `'…'` (`!'` and `!!` escape) or bare
 * words, numbers. Bounded: at most MAX_RISON_CHARS of input and MAX_RISON_DEPTH levels of nesting;
 * anything else is an error with the offending position.
 */

export const MAX_RISON_CHARS = 4096;
export const MAX_RISON_DEPTH = 16;

export type RisonValue = null | boolean | number | string | RisonValue[] | { [key: string]: RisonValue };

export class RisonError extends Error {}

/** Characters a bare word may not hold (and the first not be a digit or `-`). */
const NOT_IN_ID = " '!:(),*@$";

export function parseRison(input: string): RisonValue {
  if (input.length > MAX_RISON_CHARS) throw new RisonError(`is longer than ${MAX_RISON_CHARS} characters`);
  let at = 0;
  const fail = (what: string): never => {
    throw new RisonError(`${what} at character ${at + 1}`);
  };

  function string(): string {
    at++; // the opening quote
    let out = '';
    while (at < input.length) {
      const c = input[at];
      if (c === "'") {
        at++;
        return out;
      }
      if (c === '!') {
        const next = input[at + 1];
        if (next !== '!' && next !== "'") fail('invalid escape in a string');
        out += next;
        at += 2;
        continue;
      }
      out += c;
      at++;
    }
    return fail('unterminated string');
  }

  function word(): string {
    const start = at;
    while (at < input.length && !NOT_IN_ID.includes(input[at])) at++;
    if (at === start) fail('unexpected character');
    return input.slice(start, at);
  }

  function key(): string {
    return input[at] === "'" ? string() : word();
  }

  function list<T>(close: string, item: () => T): T[] {
    const items: T[] = [];
    if (input[at] === close) {
      at++;
      return items;
    }
    for (;;) {
      items.push(item());
      const c = input[at];
      at++;
      if (c === close) return items;
      if (c !== ',') {
        at--;
        fail(`expected "," or "${close}"`);
      }
    }
  }

  function value(depth: number): RisonValue {
    if (depth > MAX_RISON_DEPTH) fail(`nests deeper than ${MAX_RISON_DEPTH} levels`);
    const c = input[at];
    if (c === undefined) return fail('unexpected end');
    if (c === '(') {
      at++;
      const entries = list(')', () => {
        const k = key();
        if (input[at] !== ':') fail('expected ":"');
        at++;
        return [k, value(depth + 1)] as const;
      });
      const out: { [key: string]: RisonValue } = Object.create(null) as { [key: string]: RisonValue };
      for (const [k, v] of entries) out[k] = v;
      return { ...out };
    }
    if (c === '!') {
      const next = input[at + 1];
      at += 2;
      if (next === '(') return list(')', () => value(depth + 1));
      if (next === 't') return true;
      if (next === 'f') return false;
      if (next === 'n') return null;
      at -= 2;
      return fail('invalid "!" value');
    }
    if (c === "'") return string();
    const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:e[+-]?\d+)?/.exec(input.slice(at, at + 64));
    if (c === '-' || (c >= '0' && c <= '9')) {
      if (!number) return fail('invalid number');
      at += number[0].length;
      return Number(number[0]);
    }
    return word();
  }

  const out = value(0);
  if (at !== input.length) fail('unexpected text after the value');
  return out;
}
