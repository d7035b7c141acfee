import { describe, expect, it } from '@jest/globals';
import { parseDocument as parseYamlDocument } from 'yaml';
import {
  parseDocument,
  readSpecDocument,
  SpecProcessingError,
  YAML_EXPANSION_MIN_BYTES,
  yamlExpandedSize,
  yamlExpansionLimit,
} from '../../../src/domain/openapi.ts';

function refusal(run: () => unknown): SpecProcessingError {
  try {
    run();
  } catch (error) {
    if (error instanceof SpecProcessingError) return error;
    throw error;
  }
  throw new Error('the document was accepted');
}

/** One anchored string of `size` characters, referred to `aliases` times. */
const aliasBomb = (size: number, aliases: number) =>
  `openapi: 3.0.3\ninfo:\n  title: &big "${'x'.repeat(size)}"\n  version: "1"\npaths: {}\nx-copies:\n${'  - *big\n'.repeat(aliases)}`;

describe('YAML alias expansion', () => {
  it('refuses one 500 KB string aliased 400 times (200 MB) before expanding it, as a SYNTAX_ERROR', () => {
    const text = aliasBomb(500_000, 400);
    const error = refusal(() => parseDocument(text, 'The spec text'));
    expect(error.detail).toBe('SYNTAX_ERROR');
    expect(error.message).toMatch(/^The spec text expands to more than 16 MiB through its YAML aliases/);
  });

  it('refuses nested aliases (a billion laughs) and an alias inside the node it names', () => {
    const levels = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++)
      levels.push(
        `l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(',')}]`,
      );
    expect(refusal(() => parseDocument(levels.join('\n'), 'laughs')).message).toMatch(/expands to more than/);
    expect(refusal(() => parseDocument('a: &a [1, *a]', 'cycle')).message).toMatch(/inside the node it names/);
  });

  it('measures what aliases stand for, each anchored node once', () => {
    const doc = parseYamlDocument('a: &s "12345678"\nb: [*s, *s, *s]\n');
    // {"a":"12345678","b":["12345678","12345678","12345678"]}: the sizes the walk counts.
    expect(yamlExpandedSize(doc, 1000)).toBe(2 + (3 + 10 + 2) + (3 + (2 + 3 * (10 + 1)) + 2));
    expect(() => yamlExpandedSize(doc, 40)).toThrow(SpecProcessingError);
  });

  it('accepts definitions sharing schemas through anchors, up to ten times their size', () => {
    const fields = Array.from({ length: 20 }, (_, i) => `        f${i}: {type: string}\n`).join('');
    const copies = Array.from({ length: 30 }, (_, i) => `    S${i}: *base\n`).join('');
    const text = `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\ncomponents:\n  schemas:\n    Base: &base\n      type: object\n      properties:\n${fields}${copies}`;
    const { document } = readSpecDocument(text, 'spec');
    expect(Object.keys((document as { components: { schemas: object } }).components.schemas)).toHaveLength(31);
    expect(yamlExpansionLimit(10)).toBe(YAML_EXPANSION_MIN_BYTES);
    expect(yamlExpansionLimit(10 * YAML_EXPANSION_MIN_BYTES)).toBe(100 * YAML_EXPANSION_MIN_BYTES);
    // JSON has no aliases: a large JSON document is never measured against the bound.
    const json = JSON.stringify({ openapi: '3.0.3', data: 'y'.repeat(3_000_000) });
    expect(parseDocument(json, 'json').format).toBe('json');
  });
});
