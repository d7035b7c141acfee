import type { DocBlock, DocFragment, DocInline, DocText, JsonDocument } from './types.ts';

/**
 * Gives every block, inline, text and fragment of a document its `key`, as GitBook's documents
 * carry: its renderer names tabs, steppers and list entries by them and refuses a tab without one.
 * Keys are `prefix` and the node's position in document order (base 36), so converting the same
 * text again gives the same keys, and texts converted with different prefixes (a page and the
 * reusable contents expanded into it) never share one. Nodes are keyed in place; the walk keeps
 * its own stack, as documents may nest deeply.
 */
export function assignKeys(document: JsonDocument, prefix: string): JsonDocument {
  type Keyed = DocBlock | DocInline | DocText | DocFragment;
  let next = 0;
  const stack: Keyed[] = [...document.nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    (node as Keyed & { key?: string }).key = `${prefix}${(next++).toString(36)}`;
    if (node.object === 'text') continue;
    const children: Keyed[] = [...(node.nodes ?? []), ...(node.object === 'block' ? (node.fragments ?? []) : [])];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return document;
}
