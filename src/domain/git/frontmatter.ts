import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

/**
 * YAML front matter of a page file in GitBook's git layout (`---` … `---` at the very top) and the
 * page fields it carries. Pure.
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

/** The page fields that live in front matter, in the order they are written. */
export interface PageFrontMatter {
  description?: string | null;
  icon?: string | null;
  emoji?: string | null;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: Record<string, unknown> | null;
  cover?: Record<string, unknown> | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Page fields read from front matter data; unknown keys are ignored. */
export function pageFieldsOf(data: Record<string, unknown>): PageFrontMatter {
  const out: PageFrontMatter = {};
  if (typeof data.description === 'string' && data.description !== '') out.description = data.description;
  if (typeof data.icon === 'string' && data.icon !== '') out.icon = data.icon;
  if (typeof data.emoji === 'string' && data.emoji !== '') out.emoji = data.emoji;
  if (data.hidden === true) out.hidden = true;
  if (data.noIndex === true) out.noIndex = true;
  if (data.noRobotsIndex === true) out.noRobotsIndex = true;
  if (isObject(data.layout)) out.layout = data.layout;
  if (isObject(data.cover)) out.cover = data.cover;
  return out;
}

/** The front matter block for a page (`---\n…---\n`), or '' when no field is set. */
export function renderFrontMatter(fields: PageFrontMatter): string {
  const data: Record<string, unknown> = {};
  if (fields.description) data.description = fields.description;
  if (fields.icon) data.icon = fields.icon;
  if (fields.emoji) data.emoji = fields.emoji;
  if (fields.hidden) data.hidden = true;
  if (fields.noIndex) data.noIndex = true;
  if (fields.noRobotsIndex) data.noRobotsIndex = true;
  if (fields.layout && Object.keys(fields.layout).length > 0) data.layout = fields.layout;
  if (fields.cover && Object.keys(fields.cover).length > 0) data.cover = fields.cover;
  if (Object.keys(data).length === 0) return '';
  return `---\n${stringifyYaml(data, { lineWidth: 0 })}---\n`;
}
