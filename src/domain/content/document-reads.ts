import type { DocBlock, DocInline, DocText, JsonDocument } from './document.ts';

/**
 * What readers of a published revision ask of a page's document besides the document itself:
 * `if` blocks evaluated for the visitor (GitBook's renderer draws nothing for an `if` block, so the
 * answer must have decided it already), and `reusable-content` blocks replaced by the blocks of the
 * content they name. Pure: the caller gives the condition test and the reusable contents' documents.
 */

type Node = DocBlock | DocInline | DocText;

/** How deep reusable contents are expanded inside each other; deeper (or circular) ones are left out. */
export const MAX_REUSABLE_DEPTH = 5;

/**
 * The document with every `if` block replaced by its blocks when its expression holds and left
 * out when it does not, or when it has no expression (`holds` is called with `data.expression`).
 */
export function evaluateDocument(document: JsonDocument, holds: (expression: string) => boolean): JsonDocument {
  return { ...document, nodes: evaluateBlocks(document.nodes, holds) };
}

function evaluateBlocks(nodes: DocBlock[], holds: (expression: string) => boolean): DocBlock[] {
  const out: DocBlock[] = [];
  // An explicit stack keeps nesting depth off the call stack: documents come from users.
  const stack: { nodes: Node[]; index: number; into: Node[] }[] = [{ nodes, index: 0, into: out }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.index >= frame.nodes.length) {
      stack.pop();
      continue;
    }
    const node = frame.nodes[frame.index++];
    if (node.object === 'block' && node.type === 'if') {
      const expression = typeof node.data?.expression === 'string' ? node.data.expression : '';
      if (expression.trim() !== '' && holds(expression)) stack.push({ nodes: node.nodes ?? [], index: 0, into: frame.into });
      continue;
    }
    if (node.object === 'text' || !node.nodes || node.nodes.length === 0) {
      frame.into.push(node);
      continue;
    }
    const children: Node[] = [];
    frame.into.push({ ...node, nodes: children } as Node);
    stack.push({ nodes: node.nodes, index: 0, into: children });
  }
  return out;
}

/** The id a `reusable-content` block names (`data.ref.reusableContent`), if it is one. */
export function reusableContentOf(node: Node): string | null {
  if (node.object !== 'block' || node.type !== 'reusable-content') return null;
  const ref = node.data?.ref;
  if (!ref || typeof ref !== 'object') return null;
  const id = (ref as Record<string, unknown>).reusableContent;
  return typeof id === 'string' ? id : null;
}

/**
 * The document with every `reusable-content` block replaced by the blocks of the content it
 * names (`documentOf(id)`, undefined when there is no such content: the block is left out).
 * Reusable contents inside reusable contents are expanded too, up to MAX_REUSABLE_DEPTH levels;
 * a content never expands inside itself.
 */
export function dereferenceReusableContents(document: JsonDocument, documentOf: (id: string) => JsonDocument | undefined): JsonDocument {
  return { ...document, nodes: expand(document.nodes, documentOf, []) as DocBlock[] };
}

function expand(nodes: Node[], documentOf: (id: string) => JsonDocument | undefined, trail: string[]): Node[] {
  const out: Node[] = [];
  for (const node of nodes) {
    const id = reusableContentOf(node);
    if (id !== null) {
      if (trail.includes(id) || trail.length >= MAX_REUSABLE_DEPTH) continue;
      const found = documentOf(id);
      if (found) out.push(...expand(found.nodes, documentOf, [...trail, id]));
      continue;
    }
    if (node.object !== 'text' && node.nodes && node.nodes.some(hasReusable)) {
      out.push({ ...node, nodes: expand(node.nodes, documentOf, trail) } as Node);
    } else out.push(node);
  }
  return out;
}

function hasReusable(node: Node): boolean {
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (reusableContentOf(next) !== null) return true;
    if (next.object !== 'text' && next.nodes) stack.push(...next.nodes);
  }
  return false;
}
