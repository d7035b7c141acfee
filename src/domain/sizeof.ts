/**
 * Estimates of what plain values take on V8's heap, for caches bounded by bytes (lru.ts). The
 * figures are those of a 64-bit Node without pointer compression (Node's default build): 8-byte
 * slots, a 16-byte string header, 24 bytes for an object's map, properties and elements, a
 * FixedArray behind every array. They are estimates, checked against heap measurements in
 * test/unit/domain/sizeof.test.ts to stay within about ±35% for the shapes the caches hold (rows
 * read from JSON, page indexes, small records): within a few bytes for objects, arrays and flat
 * strings, above the truth where short string values are shared (V8 deduplicates those of up to
 * 10 characters that JSON.parse reads). They never run the value's own code.
 */

/** What one entry costs a cache beyond its key and value: lru-cache's slots and its Map entry. */
export const CACHE_ENTRY_OVERHEAD = 96;

const STRING_HEADER = 16;
const OBJECT_HEADER = 24;
const SLOT = 8;
/** A JSMap or JSSet with its hash table header. */
const COLLECTION_HEADER = 64;
/** Per entry of a Map's OrderedHashMap (key, value, chain link and a bucket). */
const MAP_ENTRY = 4 * SLOT;
const SET_ENTRY = 3 * SLOT;
/** Anything else (a function, a class instance with hidden state): a flat guess. */
const OPAQUE = 64;

const align = (n: number) => Math.ceil(n / SLOT) * SLOT;
const TWO_BYTE = /[^\u0000-\u00ff]/;

/** A string's bytes: one per character when all are Latin-1, two otherwise. */
export function stringBytes(value: string): number {
  return align(STRING_HEADER + value.length * (TWO_BYTE.test(value) ? 2 : 1));
}

/**
 * The bytes `value` and everything it holds take, counting an object reached twice once (but not
 * a string: one string held twice counts twice, where a value holds the same string object in two
 * places, estimate it in parts with mapBytes). Object keys are left out (property names are
 * shared by every object of a shape); so are numbers that fit a small integer. Walks iteratively,
 * so a deep value cannot overflow the stack.
 */
export function estimateBytes(value: unknown): number {
  let total = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
        total += stringBytes(v);
        continue;
      case 'number':
        total += Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? 0 : 16;
        continue;
      case 'bigint':
        total += 24;
        continue;
      case 'object':
        break;
      case 'function':
        total += OPAQUE;
        continue;
      default:
        continue; // boolean, undefined, symbol: no bytes of their own
    }
    if (v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      total += 32 + 16 + SLOT * v.length;
      for (const item of v) stack.push(item);
    } else if (v instanceof Map) {
      total += COLLECTION_HEADER + MAP_ENTRY * v.size;
      for (const [k, item] of v) stack.push(k, item);
    } else if (v instanceof Set) {
      total += COLLECTION_HEADER + SET_ENTRY * v.size;
      for (const item of v) stack.push(item);
    } else if (v instanceof Date) {
      total += 48;
    } else if (ArrayBuffer.isView(v)) {
      total += 64 + v.byteLength;
    } else if (v instanceof Promise) {
      total += OPAQUE;
    } else {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        total += OPAQUE;
        continue;
      }
      const values = Object.values(v);
      total += OBJECT_HEADER + SLOT * values.length;
      for (const item of values) stack.push(item);
    }
  }
  return total;
}

/**
 * A JSON Schema compiled by Ajv: its generated function (bytecode and closures: measured at about
 * 7 KB plus 2.3 bytes per character of its source, for schemas of 3 to 30 properties), with Ajv's
 * own records of it, and the schema object kept with it.
 */
export function compiledSchemaBytes(schema: object, validate: (...args: never[]) => unknown): number {
  return 8192 + 3 * validate.toString().length + estimateBytes(schema);
}

/** A Map's own bytes for `entries` entries (its keys and values not included). */
export function mapBytes(entries: number): number {
  return COLLECTION_HEADER + MAP_ENTRY * entries;
}

/** A cache entry's bytes: its key, its value (or the estimate given for it) and the cache's own share. */
export function entryBytes(key: unknown, value: unknown, valueBytes: number = estimateBytes(value)): number {
  return CACHE_ENTRY_OVERHEAD + estimateBytes(key) + valueBytes;
}
