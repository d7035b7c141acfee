/**
 * A change request's description. GitBook answers and takes it as a JSON document; this service
 * keeps its text (what merge rules and readers need) and also takes that text as a string. Pure.
 */

/** Longest description kept, in characters of text. */
export const MAX_DESCRIPTION_CHARS = 10_000;

interface TextLeaf {
  object: 'leaf';
  text: string;
  marks: [];
}

interface DescriptionDocument {
  object: 'document';
  data: Record<string, never>;
  nodes: {
    object: 'block';
    type: 'paragraph';
    data: Record<string, never>;
    isVoid: false;
    nodes: { object: 'text'; leaves: TextLeaf[] }[];
  }[];
}

/**
 * The description as GitBook's JSON document: a paragraph for each run of lines between blank
 * lines (the lines of one run stay in it, joined by line breaks). Its size is that of the text.
 */
export function descriptionDocument(text: string): DescriptionDocument {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((run) => run.replace(/^\n+|\n+$/g, ''))
    .filter((run) => run.trim() !== '');
  return {
    object: 'document',
    data: {},
    nodes: paragraphs.map((run) => ({
      object: 'block',
      type: 'paragraph',
      data: {},
      isVoid: false,
      nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: run, marks: [] }] }],
    })),
  };
}

const BLOCK_BREAK = '\n\n';

/**
 * The text of a description sent as a JSON document: the text of its leaves, blocks separated by
 * a blank line (inline nodes, marks and block types are not kept). Walks each node once, without
 * recursion, so its cost is that of the body already read; stops once it holds more than
 * `MAX_DESCRIPTION_CHARS`, which the caller then refuses.
 */
export function descriptionText(document: unknown): string {
  let out = '';
  const stack: unknown[] = [document];
  while (stack.length > 0 && out.length <= MAX_DESCRIPTION_CHARS) {
    const node = stack.pop();
    if (node === BLOCK_BREAK) {
      if (out !== '' && !out.endsWith(BLOCK_BREAK)) out += BLOCK_BREAK;
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const record = node as { object?: unknown; text?: unknown; leaves?: unknown; nodes?: unknown; fragments?: unknown };
    if (typeof record.text === 'string' && record.object === 'leaf') out += record.text;
    const children = [
      ...(Array.isArray(record.leaves) ? record.leaves : []),
      ...(Array.isArray(record.nodes) ? record.nodes : []),
      ...(Array.isArray(record.fragments) ? record.fragments : []),
    ];
    if (record.object === 'block') stack.push(BLOCK_BREAK);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out.replace(/\n+$/, '');
}
