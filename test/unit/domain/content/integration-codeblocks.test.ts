import { describe, expect, it } from '@jest/globals';
import { markdownToDocument } from '../../../../src/domain/content/document.ts';
import {
  bySyntax,
  codeblockDeclarations,
  codeSyntaxes,
  declarationsKey,
  withIntegrationBlocks,
} from '../../../../src/domain/content/integration-codeblocks.ts';

// GitBook's Mermaid integration declares its block this way (gitbook-manifest.yaml of GitbookIO/integrations).
const mermaid = codeblockDeclarations('mermaid', [
  { id: 'diagram', title: 'Mermaid diagram', markdown: { codeblock: 'mermaid', body: 'content' } },
  { id: 'other', title: 'No markdown' },
]);

describe('code blocks claimed by integrations', () => {
  it('reads the declarations of blocks that have a markdown code block, and only those', () => {
    expect(mermaid).toEqual([{ syntax: 'mermaid', integration: 'mermaid', block: 'diagram', body: 'content' }]);
    expect(codeblockDeclarations('x', null)).toEqual([]);
    expect(
      codeblockDeclarations('x', [{ id: 'b', markdown: { codeblock: '', body: 'c' } }, { markdown: { codeblock: 'a', body: 'c' } }]),
    ).toEqual([]);
  });

  it('keeps one integration per syntax, the same whatever the order', () => {
    const a = { syntax: 'uml', integration: 'plantuml', block: 'diagram', body: 'content' };
    const b = { syntax: 'uml', integration: 'other', block: 'b', body: 'text' };
    expect(bySyntax([a, b, ...mermaid])).toEqual([...mermaid, b]);
    expect(declarationsKey(bySyntax([b, a]))).toBe(declarationsKey(bySyntax([a, b])));
  });

  it('turns a code block of a claimed syntax into the block, its code the body property, wherever it sits', () => {
    const code = 'graph TD\n  A["quoted"] --> B';
    const markdown = `\`\`\`mermaid\n${code}\n\`\`\`\n\n{% tabs %}\n{% tab title="A" %}\n\`\`\`mermaid\nsequenceDiagram\n\`\`\`\n{% endtab %}\n{% endtabs %}\n\n\`\`\`js\nx()\n\`\`\`\n`;
    const document = markdownToDocument(markdown);
    const before = JSON.stringify(document);
    expect(codeSyntaxes(document)).toEqual(['js', 'mermaid']);

    const shown = withIntegrationBlocks(document, mermaid);
    expect(shown.nodes[0]).toEqual({
      object: 'block',
      type: 'integration',
      key: document.nodes[0].key,
      data: { integration: 'mermaid', block: 'diagram', props: { content: code } },
      isVoid: true,
    });
    const tabs = shown.nodes[1] as { type: string; nodes: { nodes: unknown[] }[] };
    expect(tabs.type).toBe('tabs');
    expect(tabs.nodes[0].nodes[0]).toMatchObject({ type: 'integration', data: { props: { content: 'sequenceDiagram' } } });
    expect(shown.nodes[2]).toMatchObject({ type: 'code', data: { syntax: 'js' } });
    // The document converted is left as it was: it is kept for spaces without the integration.
    expect(JSON.stringify(document)).toBe(before);
  });

  it('answers the same document when nothing is claimed', () => {
    const document = markdownToDocument('```js\nx()\n```\n');
    expect(withIntegrationBlocks(document, mermaid)).toBe(document);
    expect(withIntegrationBlocks(document, [])).toBe(document);
  });
});
