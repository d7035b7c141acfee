/**
 * The start of a markdown document, read without parsing the whole of it: where its first block
 * begins once the leading front matter, blank lines and raw HTML blocks are skipped, and the
 * markdown source of that block when it can be a heading. Parsing only that source with
 * `parseMarkdown` gives the same first block as parsing the whole document, at a cost bounded by
 * the limits given, whatever the document's size.
 *
 * Front matter is recognized as `parseMarkdown` recognizes it (`---`, a first key right away, a
 * closing `---` or `...` line); HTML blocks as micromark recognizes them (CommonMark's seven
 * kinds of HTML block, including where each ends), ported here state for state.
 */

export interface LeadingBlockLimits {
  /** Front matter, blank lines, HTML blocks and the heading must all end within this many characters. */
  scanLimit: number;
  /** The largest heading source (ATX line, or setext paragraph and underline) returned. */
  maxSource: number;
}

/**
 * The source of the document's first block when it may be a level-1 heading (a `#` line, or a
 * paragraph underlined with `=`), followed by the link and footnote definitions it refers to;
 * undefined when the first block cannot be one, or when telling would take more than the limits.
 */
export function leadingHeadingSource(markdown: string, limits: LeadingBlockLimits): string | undefined {
  const truncated = markdown.length > limits.scanLimit;
  const text = truncated ? markdown.slice(0, limits.scanLimit) : markdown;
  const start = firstBlockStart(text, truncated);
  if (start === undefined || start >= text.length) return undefined;
  // A setext heading: paragraph lines, then a `=` underline before any blank line. Failing one,
  // an ATX heading: a `#` line (when it is a paragraph's first line, the underline decides).
  let end: number | undefined;
  for (let at = start; at < text.length && at - start <= limits.maxSource; at = nextLine(text, at)) {
    const lineStop = lineEnd(text, at);
    const line = text.slice(at, Math.min(lineStop, at + limits.maxSource + 1));
    if (isBlank(line)) break;
    if (at > start && /^ {0,3}=+[ \t]*$/.test(line)) {
      end = lineStop;
      break;
    }
  }
  if (end === undefined && /^ {0,3}#/.test(text.slice(start, start + 4))) end = lineEnd(text, start);
  // A heading cut short by the scan limit, or longer than allowed, is not read.
  if (end === undefined || end - start > limits.maxSource || (end === text.length && truncated)) return undefined;
  // After a line break, so that a block starting with `---` is not taken for front matter again.
  const source = `\n${text.slice(start, end)}`;
  return source.includes('[') ? source + definitionsFor(source, markdown) : source;
}

/**
 * Where the first block starts: after front matter, blank lines and HTML blocks. Undefined when
 * the document holds nothing else within `text`, or when `text` (a truncated document) ends
 * before that can be told.
 */
function firstBlockStart(text: string, truncated: boolean): number | undefined {
  let at = frontMatterEnd(text, truncated);
  if (at === undefined) return undefined;
  while (at < text.length) {
    const stop = lineEnd(text, at);
    const line = text.slice(at, stop);
    if (isBlank(line)) {
      at = nextLine(text, at);
      continue;
    }
    const indent = /^ {0,3}/.exec(line)![0].length;
    if (line[indent] !== '<') return at;
    const htmlEnd = htmlBlockEnd(text, at + indent);
    if (htmlEnd === null) return at;
    if (htmlEnd >= text.length) return undefined;
    at = nextLine(text, htmlEnd);
  }
  return undefined;
}

/** Where the content after a leading front matter starts (0 without one), as `parseMarkdown` reads it; undefined when `text` is cut before its end. */
function frontMatterEnd(text: string, truncated: boolean): number | undefined {
  const first = text.indexOf('\n');
  if (first < 0 || text.slice(0, first).trimEnd() !== '---') return 0;
  const second = text.indexOf('\n', first + 1);
  if (second < 0 && truncated) return undefined;
  if (second < 0 || text.slice(first + 1, second).trim() === '') return 0;
  for (let at = first + 1; ;) {
    const stop = text.indexOf('\n', at);
    const line = text.slice(at, stop < 0 ? text.length : stop).trimEnd();
    if (line === '---' || line === '...') return stop < 0 ? text.length : stop + 1;
    if (stop < 0) return truncated ? undefined : 0;
    at = stop + 1;
  }
}

/**
 * The link, image and footnote definitions of `markdown` whose labels `source` uses, each after a
 * blank line: the lines that look like one, wherever they are (a definition-like line inside a
 * code or HTML block is taken too, where a full parse would leave the reference as text).
 */
function definitionsFor(source: string, markdown: string): string {
  const labels = new Set<string>();
  for (const match of source.matchAll(/\[((?:[^[\]\\]|\\.){1,999})\]/g)) {
    labels.add(normalizeLabel(match[1]));
    if (labels.size >= 16) break;
  }
  let out = '';
  for (const match of markdown.matchAll(
    /^ {0,3}\[((?:[^[\]\\]|\\.){1,999})\]:[^\n\r]*(?:(?:\r\n|\n|\r)(?![ \t]*$| {0,3}\[)[^\n\r]*){0,2}/gm,
  )) {
    if (!labels.has(normalizeLabel(match[1]))) continue;
    out += `\n\n${match[0].slice(0, 2048)}`;
    if (out.length > 8 * 2048) break;
  }
  return out;
}

const normalizeLabel = (label: string) =>
  label
    .replace(/[\t\n\r ]+/g, ' ')
    .trim()
    .toLowerCase()
    .toUpperCase();

const isBlank = (line: string) => /^[ \t]*$/.test(line);

/** The index of the line ending (\n, \r\n or \r) that ends the line starting at `at`, or the text's length. */
function lineEnd(text: string, at: number): number {
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return text.length;
}

/** The start of the line after the one starting at `at` (the text's length after the last). */
function nextLine(text: string, at: number): number {
  const stop = lineEnd(text, at);
  if (stop >= text.length) return text.length;
  return text.charCodeAt(stop) === 13 && text.charCodeAt(stop + 1) === 10 ? stop + 2 : stop + 1;
}

// HTML blocks, as micromark's `html-flow` tokenizer finds them (not interrupting a paragraph).

const HTML_BLOCK_NAMES = new Set(
  (
    'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt ' +
    'fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link ' +
    'main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead ' +
    'title tr track ul'
  ).split(' '),
);
const HTML_RAW_NAMES = new Set(['pre', 'script', 'style', 'textarea']);

type Marker = 'raw' | 'comment' | 'instruction' | 'declaration' | 'cdata' | 'basic' | 'complete';

const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAlphanumeric = (c: number) => isAlpha(c) || (c >= 48 && c <= 57);
const isLineEnding = (c: number) => c === 10 || c === 13;
const isSpace = (c: number) => c === 32 || c === 9;
/** The character code at `i`, or -1 past the end (micromark's eof). */
const at = (text: string, i: number) => (i < text.length ? text.charCodeAt(i) : -1);

/**
 * Where the HTML block that starts with the `<` at `start` ends: the index of the line ending
 * that closes it, or the text's length when it runs to the end. Null when no HTML block starts
 * there (the line is something else).
 */
export function htmlBlockEnd(text: string, start: number): number | null {
  let i = start + 1;
  let marker: Marker;
  let state: 'continuation' | 'declarationInside';
  let c = at(text, i);
  if (c === 33 /* ! */) {
    c = at(text, ++i);
    if (c === 45 /* - */) {
      if (at(text, i + 1) !== 45) return null;
      i += 2;
      marker = 'comment';
      state = 'declarationInside';
    } else if (c === 91 /* [ */) {
      if (text.slice(i + 1, i + 7) !== 'CDATA[') return null;
      i += 7;
      marker = 'cdata';
      state = 'continuation';
    } else if (isAlpha(c)) {
      i++;
      marker = 'declaration';
      state = 'declarationInside';
    } else return null;
  } else if (c === 63 /* ? */) {
    i++;
    marker = 'instruction';
    state = 'declarationInside';
  } else {
    const closing = c === 47; /* / */
    if (closing) c = at(text, ++i);
    if (!isAlpha(c)) return null;
    const nameStart = i;
    while (c === 45 || isAlphanumeric(c)) c = at(text, ++i);
    if (!(c === -1 || c === 47 || c === 62 || isSpace(c) || isLineEnding(c))) return null;
    const name = text.slice(nameStart, i).toLowerCase();
    state = 'continuation';
    if (c !== 47 && !closing && HTML_RAW_NAMES.has(name)) marker = 'raw';
    else if (HTML_BLOCK_NAMES.has(name)) {
      marker = 'basic';
      if (c === 47) {
        if (at(text, i + 1) !== 62) return null;
        i += 2;
      }
    } else {
      marker = 'complete';
      const after = closing ? completeClosingTag(text, i) : completeOpenTag(text, i);
      if (after === null) return null;
      i = after;
    }
  }
  return continuation(text, i, marker, state);
}

/** After the name of a closing tag: spaces, `>`, then only spaces to the end of the line. */
function completeClosingTag(text: string, i: number): number | null {
  while (isSpace(at(text, i))) i++;
  return completeEnd(text, i);
}

/** After the name of an opening tag: attributes, an optional `/`, `>`, then only spaces to the end of the line. */
function completeOpenTag(text: string, i: number): number | null {
  let state: 'nameBefore' | 'name' | 'nameAfter' | 'valueBefore' | 'quoted' | 'quotedAfter' | 'unquoted' = 'nameBefore';
  let quote = 0;
  for (;;) {
    const c = at(text, i);
    switch (state) {
      case 'nameBefore':
        if (c === 47 /* / */) return completeEnd(text, i + 1);
        if (c === 58 || c === 95 || isAlpha(c)) state = 'name';
        else if (!isSpace(c)) return completeEnd(text, i);
        i++;
        break;
      case 'name':
        if (c === 45 || c === 46 || c === 58 || c === 95 || isAlphanumeric(c)) i++;
        else state = 'nameAfter';
        break;
      case 'nameAfter':
        if (c === 61 /* = */) {
          i++;
          state = 'valueBefore';
        } else if (isSpace(c)) i++;
        else state = 'nameBefore';
        break;
      case 'valueBefore':
        if (c === -1 || c === 60 || c === 61 || c === 62 || c === 96) return null;
        if (c === 34 || c === 39) {
          quote = c;
          state = 'quoted';
          i++;
        } else if (isSpace(c)) i++;
        else state = 'unquoted';
        break;
      case 'quoted':
        if (c === quote) state = 'quotedAfter';
        else if (c === -1 || isLineEnding(c)) return null;
        i++;
        break;
      case 'quotedAfter':
        if (!(c === 47 || c === 62 || isSpace(c))) return null;
        state = 'nameBefore';
        break;
      case 'unquoted':
        if (c === -1 || c === 34 || c === 39 || c === 47 || c === 60 || c === 61 || c === 62 || c === 96 || isSpace(c) || isLineEnding(c))
          state = 'nameAfter';
        else i++;
        break;
    }
  }
}

/** `>` then only spaces and tabs up to the end of the line: where the continuation starts, or null. */
function completeEnd(text: string, i: number): number | null {
  if (at(text, i) !== 62) return null;
  i++;
  while (isSpace(at(text, i))) i++;
  const c = at(text, i);
  return c === -1 || isLineEnding(c) ? i : null;
}

/** The rest of an HTML block from `i`: where it ends (see `htmlBlockEnd`). */
function continuation(text: string, i: number, marker: Marker, initial: 'continuation' | 'declarationInside'): number {
  type State = 'continuation' | 'commentInside' | 'rawTagOpen' | 'rawEndTag' | 'cdataInside' | 'declarationInside' | 'close';
  let state: State = initial;
  let buffer = '';
  for (;;) {
    const c = at(text, i);
    switch (state) {
      case 'close':
        if (c === -1 || isLineEnding(c)) return i;
        i++;
        continue;
      case 'commentInside':
        if (c === 45) {
          i++;
          state = 'declarationInside';
          continue;
        }
        state = 'continuation';
        break;
      case 'rawTagOpen':
        if (c === 47) {
          i++;
          buffer = '';
          state = 'rawEndTag';
          continue;
        }
        state = 'continuation';
        break;
      case 'rawEndTag':
        if (c === 62 && HTML_RAW_NAMES.has(buffer.toLowerCase())) {
          i++;
          state = 'close';
          continue;
        }
        if (c !== 62 && isAlpha(c) && buffer.length < 8) {
          buffer += String.fromCharCode(c);
          i++;
          continue;
        }
        state = 'continuation';
        break;
      case 'cdataInside':
        if (c === 93) {
          i++;
          state = 'declarationInside';
          continue;
        }
        state = 'continuation';
        break;
      case 'declarationInside':
        if (c === 62) {
          i++;
          state = 'close';
          continue;
        }
        if (c === 45 && marker === 'comment') {
          i++;
          continue;
        }
        state = 'continuation';
        break;
      case 'continuation':
        break;
    }
    // continuation
    if (c === 45 && marker === 'comment') {
      i++;
      state = 'commentInside';
    } else if (c === 60 && marker === 'raw') {
      i++;
      state = 'rawTagOpen';
    } else if (c === 62 && marker === 'declaration') {
      i++;
      state = 'close';
    } else if (c === 63 && marker === 'instruction') {
      i++;
      state = 'declarationInside';
    } else if (c === 93 && marker === 'cdata') {
      i++;
      state = 'cdataInside';
    } else if (c === -1) {
      return i;
    } else if (isLineEnding(c)) {
      const next = c === 13 && at(text, i + 1) === 10 ? i + 2 : i + 1;
      // Basic and complete blocks end before a blank line; the others only at their closing marker.
      if ((marker === 'basic' || marker === 'complete') && isBlank(text.slice(next, lineEnd(text, next)))) return i;
      if (next >= text.length) return text.length;
      i = next;
    } else i++;
  }
}
