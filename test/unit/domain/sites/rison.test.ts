import { describe, expect, it } from '@jest/globals';
import { MAX_RISON_CHARS, parseRison, RisonError } from '../../../../src/domain/sites/rison.ts';
import { contentRefOf, parsePublishedUrl, shareKeyCandidates } from '../../../../src/domain/sites/urls.ts';

describe('parseRison', () => {
  it('reads objects, arrays, constants, strings, bare words and numbers', () => {
    expect(parseRison("(a:1,b:'x y',c:!t,d:!f,e:!n,f:!(1,-2.5,3e2),g:(h:word),'i j':'it!'s !!')")).toEqual({
      a: 1,
      b: 'x y',
      c: true,
      d: false,
      e: null,
      f: [1, -2.5, 300],
      g: { h: 'word' },
      'i j': "it's !",
    });
    expect(parseRison('()')).toEqual({});
    expect(parseRison('!()')).toEqual([]);
    expect(parseRison("''")).toBe('');
    expect(parseRison('plain')).toBe('plain');
  });

  it('keeps __proto__ an ordinary key', () => {
    const value = parseRison('(__proto__:(polluted:!t))') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(value)).toEqual(['__proto__']);
  });

  it.each([
    ['(a:1', /expected "," or "\)"/],
    ['(a)', /expected ":"/],
    ["'open", /unterminated string/],
    ["'bad!x'", /invalid escape/],
    ['!x', /invalid "!" value/],
    ['(a:1)x', /unexpected text/],
    ['-', /invalid number/],
    ['', /unexpected end/],
    [`${'(a:'.repeat(20)}1${')'.repeat(20)}`, /nests deeper/],
    [`${'!('.repeat(20)}${')'.repeat(20)}`, /nests deeper/],
  ])('refuses %j with its position', (input, message) => {
    expect(() => parseRison(input)).toThrow(RisonError);
    expect(() => parseRison(input)).toThrow(message);
  });

  it('refuses input past its bound before reading it', () => {
    expect(() => parseRison(`'${'a'.repeat(MAX_RISON_CHARS)}'`)).toThrow(/longer than/);
  });
});

describe('preview URLs', () => {
  const sites = 'https://docs.example.com/sites';
  const preview = 'https://docs.example.com/preview';

  it('names the site by id under the preview base, and nothing else there', () => {
    expect(parsePublishedUrl(`${preview}/site1/a/b?token=x`, sites, preview)).toMatchObject({
      kind: 'preview',
      siteId: 'site1',
      base: preview,
      segments: ['a', 'b'],
    });
    expect(parsePublishedUrl(`${preview}/`, sites, preview)).toBeNull();
    expect(parsePublishedUrl(`${preview}x/site1`, sites, preview)).toMatchObject({ kind: 'host' });
    expect(parsePublishedUrl(`${preview}/site1`, sites)).toMatchObject({ kind: 'host' });
    expect(shareKeyCandidates(parsePublishedUrl(`${preview}/site1/${'k'.repeat(32)}`, sites, preview)!)).toEqual([]);
  });

  it('finds ~/changes/<id>/ and ~/revisions/<id>/ wherever they stand', () => {
    expect(contentRefOf(['v', 'variant', '~', 'changes', 'cr1', 'a', 'b'])).toEqual({
      segments: ['v', 'variant', 'a', 'b'],
      ref: { kind: 'changes', id: 'cr1' },
    });
    expect(contentRefOf(['~', 'revisions', 'r1'])).toEqual({ segments: [], ref: { kind: 'revisions', id: 'r1' } });
    expect(contentRefOf(['~', 'other', 'x'])).toEqual({ segments: ['~', 'other', 'x'] });
    expect(contentRefOf(['~', 'changes'])).toEqual({ segments: ['~', 'changes'] });
  });
});
