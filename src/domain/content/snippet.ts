/** Search snippets: a short extract of a section's text around the first term it matches. */
import { collapse } from './markdown-parse.ts';

const ELLIPSIS = '…';

/**
 * A short extract of `body` (whitespace-collapsed, at most `max` characters including the `…`
 * marks where it was cut) around the first occurrence of any of `terms`, compared without
 * regard to case. Without a match, the extract is the start of the body. Cuts fall between
 * words when the words are short enough to allow it.
 */
export function snippet(body: string, terms: string[], max = 200): string {
  const text = collapse(body);
  if (max <= 0) return '';
  if (text.length <= max) return text;
  if (max === 1) return ELLIPSIS;

  const match = findTerm(text, terms);
  const index = match?.index ?? 0;
  const length = match?.length ?? 0;

  let start: number;
  let end: number;
  const centred = index - Math.max(0, Math.floor((max - 2 - length) / 2));
  if (match === undefined || centred <= 0) {
    start = 0;
    end = max - 1;
  } else if (centred + (max - 2) >= text.length) {
    end = text.length;
    start = text.length - (max - 1);
  } else {
    start = centred;
    end = centred + (max - 2);
  }

  // Cut between words rather than inside one, without losing the match.
  if (start > 0 && text[start - 1] !== ' ') {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < index) start = space + 1;
  }
  if (end < text.length && text[end] !== ' ') {
    const space = text.lastIndexOf(' ', end);
    if (space > start && space >= index + length) end = space;
  }
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;

  const piece = text.slice(start, end).trim();
  return (start > 0 ? ELLIPSIS : '') + piece + (end < text.length ? ELLIPSIS : '');
}

function findTerm(text: string, terms: string[]): { index: number; length: number } | undefined {
  const wanted = [...new Set(terms.map((t) => t.trim()).filter((t) => t !== ''))].sort((a, b) => b.length - a.length);
  if (wanted.length === 0) return undefined;
  const pattern = new RegExp(wanted.map(escapeRegExp).join('|'), 'iu');
  const found = pattern.exec(text);
  return found === null ? undefined : { index: found.index, length: found[0].length };
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
