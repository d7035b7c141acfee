import type { Nodes } from 'mdast';
import { visit } from 'unist-util-visit';
import { parseMarkdown } from '../content/markdown.ts';

/**
 * Rewriting link targets inside markdown without touching anything else: the text is parsed only
 * to find where each target is written, and exactly those characters are replaced, so GitBook
 * blocks (`{% hint %}`…), spacing and every other byte come through unchanged. Pure.
 */

export type LinkRewriter = (url: string, kind: 'link' | 'image' | 'html') => string | null;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Where the destination of an inline link or image begins and ends, from `from` (just after `](`). */
function destinationAt(text: string, from: number): { start: number; end: number; raw: string } | null {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n')) i++;
  if (text[i] === '<') {
    const close = text.indexOf('>', i + 1);
    if (close === -1) return null;
    return { start: i + 1, end: close, raw: text.slice(i + 1, close) };
  }
  let depth = 0;
  let j = i;
  for (; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n') break;
    if (c === '(') depth++;
    if (c === ')') {
      if (depth === 0) break;
      depth--;
    }
  }
  return j > i ? { start: i, end: j, raw: text.slice(i, j) } : null;
}

const unescape = (raw: string) => raw.replace(/\\([!-/:-@[-`{-~])/g, '$1');

/** Wraps a destination in `<…>` when it has characters a bare destination cannot hold. */
function destination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, (c) => encodeURIComponent(c))}>` : url;
}

/**
 * Calls `rewrite` for every link, image, link definition and `<a href>`/`<img src>` target of the
 * markdown, and replaces the target where it returns a string. Returns the text unchanged (the
 * same string) when nothing was replaced.
 */
export function rewriteLinks(markdown: string, rewrite: LinkRewriter): string {
  if (!/\]\(|\]:|<img|<a |src=|href=/i.test(markdown)) return markdown;
  const tree = parseMarkdown(markdown);
  const edits: Edit[] = [];
  visit(tree, (node: Nodes) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    if (node.type === 'link' || node.type === 'image') {
      let from = start;
      if (node.type === 'link' && node.children.length > 0) from = node.children[node.children.length - 1].position?.end.offset ?? start;
      const open = markdown.indexOf('](', from);
      if (open === -1 || open >= end) return;
      const dest = destinationAt(markdown, open + 2);
      if (!dest || dest.end > end) return;
      const next = rewrite(unescape(dest.raw), node.type);
      if (next !== null) {
        // A target in `<…>` that no longer needs them loses them: the same link reads the same
        // whichever way it was written (`a%20b.png` or `<a b.png>`).
        const wrapped = markdown[dest.start - 1] === '<';
        if (wrapped && destination(next) === next) edits.push({ start: dest.start - 1, end: dest.end + 1, text: next });
        else
          edits.push({ start: dest.start, end: dest.end, text: wrapped ? next.replace(/[<>]/g, encodeURIComponent) : destination(next) });
      }
      return 'skip';
    }
    if (node.type === 'definition') {
      const colon = markdown.indexOf(']:', start);
      if (colon === -1 || colon >= end) return;
      const dest = destinationAt(markdown, colon + 2);
      if (!dest || dest.end > end) return;
      const next = rewrite(unescape(dest.raw), 'link');
      if (next !== null)
        edits.push({ start: dest.start, end: dest.end, text: markdown[dest.start - 1] === '<' ? next : destination(next) });
      return;
    }
    if (node.type === 'html') {
      const pattern = /\b(src|href)=("([^"]*)"|'([^']*)')/gi;
      for (let m = pattern.exec(node.value); m !== null; m = pattern.exec(node.value)) {
        const raw = m[3] ?? m[4];
        const next = rewrite(raw.replace(/&amp;/g, '&'), 'html');
        if (next === null) continue;
        const valueStart = start + m.index + m[1].length + 2;
        edits.push({ start: valueStart, end: valueStart + raw.length, text: next.replace(/&/g, '&amp;').replace(/"/g, '%22') });
      }
    }
    return;
  });
  if (edits.length === 0) return markdown;
  edits.sort((a, b) => b.start - a.start);
  let out = markdown;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** True for targets that leave the repository: a scheme, `//host`, `mailto:`, or a bare anchor. */
export function isExternal(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//') || url.startsWith('#') || url.startsWith('?') || url.trim() === '';
}

/** Splits `path#anchor` (or `path?q`) into the path and what follows it. */
export function splitSuffix(url: string): { path: string; suffix: string } {
  const at = url.search(/[?#]/);
  return at === -1 ? { path: url, suffix: '' } : { path: url.slice(0, at), suffix: url.slice(at) };
}
