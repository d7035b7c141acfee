import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { checkOptions, checkValue, isSelectType, pruneValue } from '../../../src/domain/custom-fields.ts';

describe('custom field definitions', () => {
  it('requires options for the select types and refuses them for the others', () => {
    expect(isSelectType('select')).toBe(true);
    expect(isSelectType('multi-select')).toBe(true);
    expect(isSelectType('text')).toBe(false);
    expect(checkOptions('select', undefined, true)).toMatch(/options is required/);
    expect(checkOptions('select', undefined, false)).toBeNull();
    expect(checkOptions('multi-select', ['a', 'b'], true)).toBeNull();
    expect(checkOptions('select', ['a', 'a'], true)).toMatch(/options\[1\] "a" is listed twice/);
    for (const type of ['text', 'number', 'boolean']) {
      expect(checkOptions(type, ['a'], true)).toMatch(/options is only for select/);
      expect(checkOptions(type, undefined, true)).toBeNull();
    }
  });
});

describe('custom field values', () => {
  const field = (type: string, options?: string[]) => ({ name: 'f', type, options });

  it('accepts each type its own kind of value', () => {
    expect(checkValue(field('text'), 'hello')).toEqual({ ok: true, value: 'hello' });
    expect(checkValue(field('text'), 'x'.repeat(256)).ok).toBe(true);
    expect(checkValue(field('number'), -1.5)).toEqual({ ok: true, value: -1.5 });
    expect(checkValue(field('boolean'), false)).toEqual({ ok: true, value: false });
    expect(checkValue(field('select', ['a', 'b']), 'b')).toEqual({ ok: true, value: 'b' });
    expect(checkValue(field('multi-select', ['a', 'b']), ['b', 'a', 'b'])).toEqual({ ok: true, value: ['b', 'a'] });
    expect(checkValue(field('multi-select', ['a']), [])).toEqual({ ok: true, value: [] });
  });

  it('refuses anything else, naming values.<name>.value', () => {
    const refusals: [string, string[] | undefined, unknown, RegExp][] = [
      ['text', undefined, 'x'.repeat(257), /values\.f\.value must NOT have more than 256/],
      ['text', undefined, 1, /values\.f\.value must be a string/],
      ['number', undefined, '1', /values\.f\.value must be a finite number/],
      ['number', undefined, Number.NaN, /finite number/],
      ['number', undefined, Number.POSITIVE_INFINITY, /finite number/],
      ['boolean', undefined, 'true', /values\.f\.value must be a boolean/],
      ['select', ['a'], 'b', /values\.f\.value "b" is not one of the options/],
      ['select', ['a'], ['a'], /values\.f\.value must be a string/],
      ['multi-select', ['a'], 'a', /values\.f\.value must be an array/],
      ['multi-select', ['a'], ['a', 2], /values\.f\.value\[1\] must be a string/],
      ['multi-select', ['a'], ['a', 'z'], /values\.f\.value\[1\] "z" is not one of the options/],
    ];
    for (const [type, options, value, message] of refusals) {
      const result = checkValue(field(type, options), value);
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.message).toMatch(message);
    }
  });

  it('never accepts a text value over 256 characters, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 400 }), (text) => {
        expect(checkValue(field('text'), text).ok).toBe(text.length <= 256);
      }),
    );
  });

  it('keeps only values that remain options', () => {
    expect(pruneValue('select', 'a', ['a'])).toBe('a');
    expect(pruneValue('select', 'b', ['a'])).toBeUndefined();
    expect(pruneValue('multi-select', ['a', 'b'], ['b', 'c'])).toEqual(['b']);
    expect(pruneValue('multi-select', ['a'], ['c'])).toBeUndefined();
    expect(pruneValue('text', 'anything', [])).toBe('anything');
  });
});
