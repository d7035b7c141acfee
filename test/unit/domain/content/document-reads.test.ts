import { describe, expect, it } from '@jest/globals';
import type { DocBlock, JsonDocument } from '../../../../src/domain/content/document.ts';
import { dereferenceReusableContents, evaluateDocument, MAX_REUSABLE_DEPTH } from '../../../../src/domain/content/document-reads.ts';
import { conditionContext, conditionHolds } from '../../../../src/domain/sites/conditions.ts';

const text = (t: string) => ({ object: 'text' as const, leaves: [{ object: 'leaf' as const, text: t, marks: [] }] });
const paragraph = (t: string): DocBlock => ({ object: 'block', type: 'paragraph', data: {}, nodes: [text(t)] });
const ifBlock = (expression: string, nodes: DocBlock[]): DocBlock => ({ object: 'block', type: 'if', data: { expression }, nodes });
const include = (id: string): DocBlock => ({
  object: 'block',
  type: 'reusable-content',
  data: { ref: { kind: 'reusable-content', reusableContent: id } },
  isVoid: true,
});
const doc = (...nodes: DocBlock[]): JsonDocument => ({ object: 'document', data: {}, nodes });
const texts = (document: JsonDocument): string[] => JSON.stringify(document).match(/"text":"[^"]*"/g) ?? [];

describe('evaluateDocument', () => {
  const context = conditionContext({ signed: { plan: 'pro' }, unsigned: { beta: true } });
  const holds = (expression: string) => conditionHolds(expression, context);

  it('keeps the blocks of an if whose expression holds, in place of the if, and drops the others', () => {
    const out = evaluateDocument(
      doc(
        paragraph('before'),
        ifBlock('visitor.claims.plan == "pro"', [paragraph('pro only')]),
        ifBlock('visitor.claims.plan == "free"', [paragraph('free only')]),
        ifBlock('visitor.claims.unsigned.beta', [paragraph('beta')]),
        paragraph('after'),
      ),
      holds,
    );
    expect(out.nodes.map((n) => n.type)).toEqual(['paragraph', 'paragraph', 'paragraph', 'paragraph']);
    expect(texts(out)).toEqual(['"text":"before"', '"text":"pro only"', '"text":"beta"', '"text":"after"']);
  });

  it('evaluates nested ifs and ifs inside other blocks; a broken or missing expression hides its blocks', () => {
    const hint: DocBlock = {
      object: 'block',
      type: 'hint',
      data: {},
      nodes: [ifBlock('true', [ifBlock('nonsense ((', [paragraph('x')])]), paragraph('kept')],
    };
    const noExpression: DocBlock = { object: 'block', type: 'if', data: {}, nodes: [paragraph('no expression')] };
    const out = evaluateDocument(doc(hint, noExpression), holds);
    expect(out.nodes).toHaveLength(1);
    expect(out.nodes[0].type).toBe('hint');
    expect(texts(out)).toEqual(['"text":"kept"']);
  });

  it('survives a deeply nested document without running out of stack', () => {
    let inner: DocBlock = paragraph('deep');
    for (let i = 0; i < 20_000; i++) inner = ifBlock('true', [inner]);
    expect(texts(evaluateDocument(doc(inner), () => true))).toEqual(['"text":"deep"']);
  });
});

describe('dereferenceReusableContents', () => {
  it('replaces reusable-content blocks by the blocks of their content, inside other blocks too', () => {
    const contents: Record<string, JsonDocument> = { intro: doc(paragraph('shared intro'), paragraph('second')) };
    const quote: DocBlock = { object: 'block', type: 'blockquote', data: {}, nodes: [include('intro')] };
    const out = dereferenceReusableContents(doc(paragraph('start'), include('intro'), quote), (id) => contents[id]);
    expect(out.nodes.map((n) => n.type)).toEqual(['paragraph', 'paragraph', 'paragraph', 'blockquote']);
    expect(texts(out)).toEqual(['"text":"start"', '"text":"shared intro"', '"text":"second"', '"text":"shared intro"', '"text":"second"']);
  });

  it('drops an include of a missing content and never expands a content inside itself', () => {
    const contents: Record<string, JsonDocument> = { a: doc(paragraph('a'), include('b')), b: doc(paragraph('b'), include('a')) };
    const out = dereferenceReusableContents(doc(include('missing'), include('a')), (id) => contents[id]);
    expect(texts(out)).toEqual(['"text":"a"', '"text":"b"']);
  });

  it('stops expanding after MAX_REUSABLE_DEPTH levels', () => {
    const contents: Record<string, JsonDocument> = {};
    for (let i = 0; i < 10; i++) contents[`c${i}`] = doc(paragraph(`level ${i}`), include(`c${i + 1}`));
    const out = dereferenceReusableContents(doc(include('c0')), (id) => contents[id]);
    expect(texts(out)).toHaveLength(MAX_REUSABLE_DEPTH);
  });

  it('leaves a document without reusable contents as it is', () => {
    const input = doc(paragraph('plain'));
    expect(dereferenceReusableContents(input, () => undefined)).toEqual(input);
  });
});
