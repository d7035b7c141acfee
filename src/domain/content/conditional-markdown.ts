import { MAX_EXPRESSION_LENGTH } from '../expressions.ts';

/**
 * A page's markdown as one visitor may read it: the `{% if %}` … `{% elif %}` … `{% else %}` …
 * `{% endif %}` branches whose condition does not hold for the visitor are removed, tags and all,
 * and the tags of the branch shown are removed too (a line left holding nothing but them goes
 * with them). Each branch's condition is the one the document conversion gives its `if` block
 * (gitbook/to-document.ts: an `elif` is `!(a) && (b)`, an `else` the negation of those before),
 * so markdown and documents show a visitor the same branches; a condition that fails to evaluate
 * does not hold. Conditions inside a hidden branch are never evaluated.
 *
 * Tags inside fenced code blocks (``` or ~~~, at any indentation) are text. An `if` left open at
 * the end hides what follows it (the parser would show it as text: when in doubt, less is shown);
 * an `elif`, `else` or `endif` without its `if` stays, as text. Linear in the input: each `{%`
 * and `%}` is found once, and a branch's condition is built at most up to the length at which no
 * condition holds any more.
 */
export function conditionalMarkdown(markdown: string, holds: (expression: string) => boolean): string {
  if (!markdown.includes('{%')) return markdown;
  const out: string[] = [];
  const frames: Frame[] = [];
  const visible = () => frames.length === 0 || frames[frames.length - 1].showing;
  let fence: { char: string; length: number } | null = null;
  // The next `%}` at or after some position: it only moves forward, so the text is searched once.
  let nextClose = -1;
  const closeFrom = (from: number) => {
    if (nextClose !== Infinity && nextClose < from) {
      const found = markdown.indexOf('%}', from);
      nextClose = found === -1 ? Infinity : found;
    }
    return nextClose;
  };

  for (let start = 0; start < markdown.length;) {
    const newline = markdown.indexOf('\n', start);
    const end = newline === -1 ? markdown.length : newline + 1;
    const lineVisible = visible();
    if (fence) {
      if (closesFence(markdown, start, end, fence)) fence = null;
      if (lineVisible) out.push(markdown.slice(start, end));
      start = end;
      continue;
    }
    const opened = FENCE.exec(markdown.slice(start, Math.min(end, start + 256)));
    if (opened) {
      fence = { char: opened[1][0], length: opened[1].length };
      if (lineVisible) out.push(markdown.slice(start, end));
      start = end;
      continue;
    }
    // The line's text outside control tags, piece by piece, each kept if shown where it stands.
    const pieces: string[] = [];
    let hadTag = false;
    let from = start;
    for (let search = start; ;) {
      const open = markdown.indexOf('{%', search);
      const close = open === -1 || open >= end ? Infinity : closeFrom(open + 2);
      if (close === Infinity || close >= end) {
        if (visible()) pieces.push(markdown.slice(from, end));
        break;
      }
      search = close + 2;
      const tag = controlTag(markdown.slice(open + 2, close));
      if (!tag || !controls(tag.name, frames)) continue;
      if (visible()) pieces.push(markdown.slice(from, open));
      apply(tag.name, tag.args, frames, holds);
      hadTag = true;
      from = close + 2;
    }
    const text = pieces.join('');
    if (!hadTag) out.push(text);
    else if (text.trim() !== '') out.push(text.endsWith('\n') || newline === -1 ? text : `${text}\n`);
    start = end;
  }
  return out.join('');
}

/** One `{% if %}` being read: whether its current branch is shown, and the conditions of the branches before. */
interface Frame {
  /** Whether what encloses the `if` is shown. */
  parentVisible: boolean;
  showing: boolean;
  /** `!(a) && !(b)` of the branches so far, or null once longer than any condition that holds. */
  negated: string | null;
}

/** Longer than this, a condition never holds (expressions.ts refuses it): it is no longer built. */
const MAX_CONDITION = 2 * MAX_EXPRESSION_LENGTH;

const TAG_NAME = /^(if|elif|else|endif)(?![\w-])/;

/** The name and arguments of a control tag from the text between `{%` and `%}` (`-` trims whitespace, as in Liquid). */
function controlTag(inside: string): { name: string; args: string } | null {
  let body = inside.trim();
  if (body.startsWith('-')) body = body.slice(1).trimStart();
  if (body.endsWith('-')) body = body.slice(0, -1).trimEnd();
  const name = TAG_NAME.exec(body)?.[1];
  return name ? { name, args: body.slice(name.length).trim() } : null;
}
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

/** Whether a tag is a control tag here: `if` always; the others only inside an `if`. */
const controls = (name: string, frames: Frame[]) => name === 'if' || frames.length > 0;

function apply(name: string, args: string, frames: Frame[], holds: (expression: string) => boolean): void {
  if (name === 'if') {
    const parentVisible = frames.length === 0 || frames[frames.length - 1].showing;
    frames.push({ parentVisible, showing: parentVisible && holds(args), negated: negation(null, args, true) });
    return;
  }
  const frame = frames[frames.length - 1];
  if (name === 'endif') {
    frames.pop();
    return;
  }
  const expression = frame.negated === null ? null : name === 'else' ? frame.negated : `${frame.negated} && (${args})`;
  frame.showing = frame.parentVisible && expression !== null && expression.length <= MAX_CONDITION && holds(expression);
  if (name === 'elif') frame.negated = negation(frame.negated, args, false);
  else frame.negated = null;
}

/** `!(a) && !(b)` extended by one more condition; null once longer than any condition that holds. */
function negation(before: string | null, args: string, first: boolean): string | null {
  if (!first && before === null) return null;
  const next = first ? `!(${args})` : `${before} && !(${args})`;
  return next.length > MAX_CONDITION ? null : next;
}

function closesFence(text: string, start: number, end: number, fence: { char: string; length: number }): boolean {
  const line = text.slice(start, Math.min(end, start + 256)).trim();
  if (line.length < fence.length) return false;
  for (let i = 0; i < line.length; i++) if (line[i] !== fence.char) return false;
  return true;
}
