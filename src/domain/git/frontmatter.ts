import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { layoutFrontMatter, storedLayout, type PageLayoutOptions } from '../content/page-layout.ts';

/**
 * YAML front matter of a page file in GitBook's git layout (`---` … `---` at the very top) and the
 * page fields it carries, read and written as GitBook's Git Sync writes them. Pure.
 */

export interface FrontMatter {
  /** The parsed block; empty when there is none or it is not a YAML mapping. */
  data: Record<string, unknown>;
  /** The text after the block. */
  body: string;
}

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/**
 * Front matter longer than this is not read as front matter (it stays in the body, as a block that
 * is not YAML does). With YAML's own alias limit (100 uses, weighted by the aliases they hold) a
 * block can expand to at most about 100 times this: aliases cannot turn a page into a memory bomb.
 */
export const MAX_FRONT_MATTER = 64 * 1024;
const ALIAS_LIMIT = { maxAliasCount: 100 };

export function splitFrontMatter(text: string): FrontMatter {
  const match = BLOCK.exec(text);
  if (!match || match[1].length > MAX_FRONT_MATTER) return { data: {}, body: text };
  try {
    const data = parseYaml(match[1], ALIAS_LIMIT);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return { data: {}, body: text };
    return { data: data as Record<string, unknown>, body: text.slice(match[0].length) };
  } catch {
    return { data: {}, body: text };
  }
}

/** A page's cover as front matter names it: the image path as written, its position and height. */
export interface FrontMatterCover {
  /** The image, as written (`.gitbook/assets/hero (1).png`, relative to the page file, or a URL). */
  path: string;
  yPos?: number;
  height?: number;
}

/** The page fields that live in front matter. */
export interface PageFrontMatter {
  description?: string | null;
  icon?: string | null;
  emoji?: string | null;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** GitBook's layout options (API form) that the front matter sets. */
  layout?: Partial<PageLayoutOptions> | null;
  cover?: FrontMatterCover | null;
  /** Keys GitBook does not map to a page field (`tags`, `name`, `metadata`…), as read, in order. */
  extra?: Record<string, unknown> | null;
}

/** The keys mapped to page fields (`title` is the page's title, written as its heading); every other key is kept in `extra`. */
const KNOWN = new Set([
  'title',
  'description',
  'icon',
  'emoji',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'layout',
  'cover',
  'coverY',
  'coverHeight',
]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Page fields read from front matter data; keys GitBook does not map are kept in `extra`. */
export function pageFieldsOf(data: Record<string, unknown>): PageFrontMatter {
  const out: PageFrontMatter = {};
  if (typeof data.description === 'string' && data.description !== '') out.description = data.description;
  if (typeof data.icon === 'string' && data.icon !== '') out.icon = data.icon;
  if (typeof data.emoji === 'string' && data.emoji !== '') out.emoji = data.emoji;
  if (data.hidden === true) out.hidden = true;
  if (data.noIndex === true) out.noIndex = true;
  if (data.noRobotsIndex === true) out.noRobotsIndex = true;
  const layout = storedLayout(data.layout);
  if (layout) out.layout = layout;
  if (typeof data.cover === 'string' && data.cover.trim() !== '') {
    out.cover = {
      path: data.cover.trim(),
      ...(finite(data.coverY) ? { yPos: data.coverY } : {}),
      ...(finite(data.coverHeight) ? { height: data.coverHeight } : {}),
    };
  }
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!KNOWN.has(key)) extra[key] = value;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

/**
 * The front matter block for a page (`---\n…---\n`), or '' when no field is set: GitBook's keys in
 * GitBook's order (`description`, `icon`, `emoji`, `cover`, `coverY`, `coverHeight`, `layout`,
 * `hidden`, `noIndex`, `noRobotsIndex`), then the other keys as they were read, in the YAML style
 * GitBook writes (see `dumpYaml`).
 */
export function renderFrontMatter(fields: PageFrontMatter): string {
  const data: Record<string, unknown> = {};
  if (fields.description) data.description = fields.description;
  if (fields.icon) data.icon = fields.icon;
  if (fields.emoji) data.emoji = fields.emoji;
  if (fields.cover && fields.cover.path !== '') {
    data.cover = fields.cover.path;
    data.coverY = fields.cover.yPos ?? 0;
    if (fields.cover.height !== undefined) data.coverHeight = fields.cover.height;
  }
  const layout = layoutFrontMatter(fields.layout);
  if (layout) data.layout = layout;
  if (fields.hidden) data.hidden = true;
  if (fields.noIndex) data.noIndex = true;
  if (fields.noRobotsIndex) data.noRobotsIndex = true;
  for (const [key, value] of Object.entries(fields.extra ?? {})) if (!KNOWN.has(key) && value !== undefined) data[key] = value;
  if (Object.keys(data).length === 0) return '';
  return `---\n${dumpYaml(data)}---\n`;
}

// ---------------------------------------------------------------------------------------------
// YAML as GitBook writes it (js-yaml's `dump` with its defaults): block mappings and sequences
// indented by two, plain scalars where they read back the same, strings longer than the line
// (80 columns less the indent) folded (`>-`), strings with characters that are not printable
// double-quoted with YAML escapes (`\_` for a no-break space), other strings single-quoted.

const LINE_WIDTH = 80;

const isPrintable = (c: number) =>
  (c >= 0x20 && c <= 0x7e) ||
  (c >= 0xa1 && c <= 0xd7ff && c !== 0x2028 && c !== 0x2029) ||
  (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) ||
  (c >= 0x10000 && c <= 0x10ffff);

const ESCAPES: Record<number, string> = {
  0x00: '\\0',
  0x07: '\\a',
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0b: '\\v',
  0x0c: '\\f',
  0x0d: '\\r',
  0x1b: '\\e',
  0x22: '\\"',
  0x5c: '\\\\',
  0x85: '\\N',
  0xa0: '\\_',
  0x2028: '\\L',
  0x2029: '\\P',
};

function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ESCAPES[c] !== undefined) out += ESCAPES[c];
    else if (isPrintable(c)) out += ch;
    else if (c <= 0xff) out += `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += `\\U${c.toString(16).toUpperCase().padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** True when the string can be written plain and reads back as the same string. */
function plainSafe(s: string): boolean {
  if (s === '' || s !== s.trim() || /[\n\r\t]/.test(s)) return false;
  try {
    const out = stringifyYaml(s, { defaultStringType: 'PLAIN', lineWidth: 0 }).replace(/\n$/, '');
    return !/^['"|>]/.test(out) && !out.includes('\n') && parseYaml(out) === s;
  } catch {
    return false;
  }
}

/** js-yaml's `foldLine`: breaks at single spaces so that lines stay within `width`. */
function foldLine(line: string, width: number): string {
  if (line === '' || line[0] === ' ') return line;
  const breakRe = / [^ ]/g;
  let start = 0;
  let curr = 0;
  let result = '';
  for (let match = breakRe.exec(line); match !== null; match = breakRe.exec(line)) {
    const next = match.index;
    if (next - start > width) {
      const end = curr > start ? curr : next;
      result += `\n${line.slice(start, end)}`;
      start = end + 1;
    }
    curr = next;
  }
  result += '\n';
  if (line.length - start > width && curr > start) result += `${line.slice(start, curr)}\n${line.slice(curr + 1)}`;
  else result += line.slice(start);
  return result.slice(1);
}

function scalar(value: unknown, indent: number): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  const s = String(value);
  const width = Math.max(Math.min(LINE_WIDTH, 40), LINE_WIDTH - indent);
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c !== 0x0a && c !== 0x09 && !isPrintable(c)) return doubleQuoted(s);
  }
  if (s.includes('\n') || s !== s.trimStart()) return doubleQuoted(s);
  if (s.length <= width) return plainSafe(s) ? s : `'${s.replace(/'/g, "''")}'`;
  const pad = ' '.repeat(indent);
  return `>-\n${foldLine(s, width)
    .split('\n')
    .map((l) => pad + l)
    .join('\n')}`;
}

const keyOf = (key: string) => (plainSafe(key) && !/[:#]/.test(key) ? key : doubleQuoted(key));

function block(value: unknown, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    const lines: string[] = [];
    for (const item of value) {
      const inner = nested(item, indent + 2);
      if (inner === null) lines.push(`${pad}- ${scalar(item, indent + 2)}`);
      else if (inner.length === 0) lines.push(`${pad}- ${Array.isArray(item) ? '[]' : '{}'}`);
      else lines.push(`${pad}- ${inner[0].slice(indent + 2)}`, ...inner.slice(1));
    }
    return lines;
  }
  const lines: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (item === undefined) continue;
    const inner = nested(item, indent + 2);
    if (inner === null) lines.push(`${pad}${keyOf(key)}: ${scalar(item, indent + 2)}`);
    else if (inner.length === 0) lines.push(`${pad}${keyOf(key)}: ${Array.isArray(item) ? '[]' : '{}'}`);
    else lines.push(`${pad}${keyOf(key)}:`, ...inner);
  }
  return lines;
}

/** The lines of a mapping or sequence at `indent`, or null for a scalar. */
function nested(value: unknown, indent: number): string[] | null {
  if (Array.isArray(value) || (isObject(value) && !(value instanceof Date))) return block(value, indent);
  return null;
}

/** A mapping as js-yaml's `dump` writes it with its defaults (GitBook's front matter style). */
export function dumpYaml(data: Record<string, unknown>): string {
  const lines = block(data, 0);
  return lines.length === 0 ? '{}\n' : `${lines.join('\n')}\n`;
}
