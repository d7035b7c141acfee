import { describe, expect, it } from '@jest/globals';
import { descriptionDocument, descriptionText, MAX_DESCRIPTION_CHARS } from '../../../src/domain/change-request-description.ts';
import { expectMatchesGitBookSchema } from '../../support/gitbook-openapi.ts';

describe("a change request's description", () => {
  it("is answered as GitBook's JSON document: a paragraph for each run of lines", () => {
    const document = descriptionDocument('Fixes the typos\nof the intro.\r\n\r\n  \n\nSecond paragraph.\n');
    expectMatchesGitBookSchema('JSONDocument', document);
    expect(document.nodes.map((p) => p.nodes[0].leaves[0].text)).toEqual(['Fixes the typos\nof the intro.', 'Second paragraph.']);
    expect(descriptionDocument('').nodes).toEqual([]);
  });

  it("keeps the text of GitBook's document, a blank line between blocks, whatever the blocks", () => {
    const sent = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'heading-1', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Why', marks: [] }] }] },
        {
          object: 'block',
          type: 'paragraph',
          nodes: [
            {
              object: 'text',
              leaves: [
                { object: 'leaf', text: 'Fixes ', marks: [] },
                { object: 'leaf', text: 'typos', marks: [{ type: 'bold' }] },
              ],
            },
            {
              object: 'inline',
              type: 'link',
              data: {},
              nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: ' here', marks: [] }] }],
            },
          ],
        },
        {
          object: 'block',
          type: 'list-unordered',
          nodes: [
            {
              object: 'block',
              type: 'list-item',
              nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'one' }] }] }],
            },
          ],
        },
      ],
    };
    expect(descriptionText(sent)).toBe('Why\n\nFixes typos here\n\none');
    // And back: what is kept reads as the same paragraphs.
    expect(descriptionDocument(descriptionText(sent)).nodes).toHaveLength(3);
  });

  it('ignores what is not a document node, and stops past the longest description', () => {
    expect(descriptionText({ object: 'document', nodes: [null, 7, 'x', { leaves: 'no' }] })).toBe('');
    const long = {
      object: 'document',
      nodes: Array.from({ length: 50 }, () => ({
        object: 'block',
        nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x'.repeat(1000) }] }],
      })),
    };
    const text = descriptionText(long);
    expect(text.length).toBeGreaterThan(MAX_DESCRIPTION_CHARS);
    expect(text.length).toBeLessThan(MAX_DESCRIPTION_CHARS + 1010);
  });
});
