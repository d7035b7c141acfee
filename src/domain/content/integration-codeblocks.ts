/**
 * Code blocks that stand for an integration's block. An integration may declare, per block,
 * `markdown: {codeblock, body}` (GitBook's Mermaid: `codeblock: mermaid`, `body: content`): in a
 * space where it is installed, a fenced code block of that syntax is its block, the code being the
 * block's `body` property. The markdown keeps the code block, as Git Sync writes it; the block is
 * what the document answers to readers, so GitBook's renderer asks the integration to render it.
 */
import type { DocBlock, JsonDocument } from './gitbook/types.ts';

/** A block an integration writes as code blocks of one syntax. */
export interface CodeblockIntegration {
  syntax: string;
  integration: string;
  block: string;
  /** The block's property the code is. */
  body: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** The code-block declarations of an integration's `blocks` (as published). */
export function codeblockDeclarations(integration: string, blocks: unknown): CodeblockIntegration[] {
  if (!Array.isArray(blocks)) return [];
  const found: CodeblockIntegration[] = [];
  for (const block of blocks) {
    if (!isRecord(block) || typeof block.id !== 'string' || !isRecord(block.markdown)) continue;
    const { codeblock, body } = block.markdown;
    if (typeof codeblock === 'string' && codeblock !== '' && typeof body === 'string' && body !== '')
      found.push({ syntax: codeblock, integration, block: block.id, body });
  }
  return found;
}

/**
 * One declaration per syntax: two installed integrations claiming the same syntax are decided by
 * name, so every reader gets the same block. Sorted by syntax, so equal sets compare equal.
 */
export function bySyntax(declarations: readonly CodeblockIntegration[]): CodeblockIntegration[] {
  const chosen = new Map<string, CodeblockIntegration>();
  for (const d of declarations) {
    const held = chosen.get(d.syntax);
    if (!held || d.integration < held.integration || (d.integration === held.integration && d.block < held.block)) chosen.set(d.syntax, d);
  }
  return [...chosen.values()].sort((a, b) => (a.syntax < b.syntax ? -1 : a.syntax > b.syntax ? 1 : 0));
}

/** A stable name of a set of declarations (from `bySyntax`), for keying what was converted with it. */
export const declarationsKey = (declarations: readonly CodeblockIntegration[]): string =>
  declarations.map((d) => `${d.syntax}=${d.integration}/${d.block}/${d.body}`).join('\n');

type Node = Record<string, unknown> & { nodes?: unknown; fragments?: unknown };

function eachChild(node: Node, visit: (children: unknown[]) => void): void {
  if (Array.isArray(node.nodes)) visit(node.nodes);
  if (Array.isArray(node.fragments))
    for (const fragment of node.fragments) if (isRecord(fragment) && Array.isArray(fragment.nodes)) visit(fragment.nodes);
}

/** The syntaxes of a document's code blocks, wherever they sit. */
export function codeSyntaxes(document: JsonDocument): string[] {
  const found = new Set<string>();
  const walk = (children: unknown[]) => {
    for (const child of children) {
      if (!isRecord(child) || child.object !== 'block') continue;
      if (child.type === 'code') {
        if (isRecord(child.data) && typeof child.data.syntax === 'string' && child.data.syntax !== '') found.add(child.data.syntax);
        continue;
      }
      eachChild(child, walk);
    }
  };
  walk(document.nodes);
  return [...found].sort();
}

/** The text of a code block: its lines' texts, one per line. */
function codeText(block: Node): string {
  if (!Array.isArray(block.nodes)) return '';
  return block.nodes
    .map((line) => {
      if (!isRecord(line) || !Array.isArray(line.nodes)) return '';
      return line.nodes
        .flatMap((text) => (isRecord(text) && Array.isArray(text.leaves) ? text.leaves : []))
        .map((leaf) => (isRecord(leaf) && typeof leaf.text === 'string' ? leaf.text : ''))
        .join('');
    })
    .join('\n');
}

/**
 * The document with each code block of a declared syntax replaced by the integration's block (its
 * key kept), its code as the block's `body` property. The document given is not changed; nothing is
 * copied when no code block is replaced.
 */
export function withIntegrationBlocks(document: JsonDocument, declarations: readonly CodeblockIntegration[]): JsonDocument {
  if (declarations.length === 0) return document;
  const bySyntaxName = new Map(declarations.map((d) => [d.syntax, d]));
  const replace = (children: unknown[]): unknown[] | undefined => {
    let changed: unknown[] | undefined;
    children.forEach((child, i) => {
      if (!isRecord(child) || child.object !== 'block') return;
      let next: unknown = child;
      if (child.type === 'code') {
        const syntax = isRecord(child.data) ? child.data.syntax : undefined;
        const declared = typeof syntax === 'string' ? bySyntaxName.get(syntax) : undefined;
        if (declared) {
          const block: DocBlock = {
            object: 'block',
            type: 'integration',
            ...(typeof child.key === 'string' ? { key: child.key } : {}),
            data: { integration: declared.integration, block: declared.block, props: { [declared.body]: codeText(child) } },
            isVoid: true,
          };
          next = block;
        }
      } else {
        next = withReplacedChildren(child, replace);
      }
      if (next !== child) (changed ??= [...children])[i] = next;
    });
    return changed;
  };
  const nodes = replace(document.nodes);
  return nodes ? { ...document, nodes: nodes as DocBlock[] } : document;
}

function withReplacedChildren(node: Node, replace: (children: unknown[]) => unknown[] | undefined): Node {
  let result = node;
  if (Array.isArray(node.nodes)) {
    const nodes = replace(node.nodes);
    if (nodes) result = { ...result, nodes };
  }
  if (Array.isArray(node.fragments)) {
    let fragments: unknown[] | undefined;
    node.fragments.forEach((fragment, i) => {
      if (!isRecord(fragment) || !Array.isArray(fragment.nodes)) return;
      const nodes = replace(fragment.nodes);
      if (nodes) (fragments ??= [...(node.fragments as unknown[])])[i] = { ...fragment, nodes };
    });
    if (fragments) result = { ...result, fragments };
  }
  return result;
}
