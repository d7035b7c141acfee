/**
 * Limits on what a page of markdown may hold, set well above what real GitBook content holds (see
 * "Limits and budgets" in docs/security.md for the maxima measured on public GitBook-layout
 * repositories): past them, parsing and converting a page costs more than any real page does
 * (micromark's footnote tokenizer is quadratic on nested brackets, its emphasis resolution on
 * emphasis opened inside emphasis, every nesting level is a
 * level of recursion somewhere, a table's cells each become a fragment).
 *
 * `measureMarkdown` reads a text in one linear pass without parsing it (it must stay cheap on a
 * megabyte); `markdownLimitProblem` names the first limit a text exceeds. Over-limit content is
 * refused when written through the API and stored as text (`markdownAsText`) when imported.
 */
import { conditionProblem } from '../sites/conditions.ts';
import { withoutConditionalBlocks } from './conditional-blocks.ts';

export const MARKDOWN_LIMITS = {
  /** Characters in one page (largest real page: 188,187; the API's own cap on a markdown body). */
  MAX_PAGE_SIZE: 1_000_000,
  /** Lists and block quotes inside one another (real maximum: 5). */
  MAX_NESTING: 50,
  /** HTML elements open inside one another within one HTML run (real maximum: 9). */
  MAX_HTML_NESTING: 100,
  /** Liquid blocks (`{% hint %}`, `{% tabs %}`, `{% if %}`…) inside one another (real maximum: 5). */
  MAX_LIQUID_NESTING: 50,
  /** Square brackets open at once within a paragraph (real maximum: 2). */
  MAX_BRACKET_NESTING: 32,
  /** Emphasis delimiters (`*`, `_`) open at once within a paragraph (real maximum: 3, `***`). */
  MAX_EMPHASIS_NESTING: 200,
  /** Columns of one table (real maximum: 9). */
  MAX_TABLE_COLUMNS: 100,
  /** Cells of one table (real maximum: 580). */
  MAX_TABLE_CELLS: 10_000,
  /** Branches of one `{% if %}` block, `{% elif %}` and `{% else %}` included (real maximum: 1, no `else` seen). */
  MAX_CONDITION_BRANCHES: 20,
  /** Characters of one `{% if %}` / `{% elif %}` condition (real maximum: 48; GitBook's own cap on an expression). */
  MAX_CONDITION_LENGTH: 1_024,
  /** Parentheses and brackets inside one another in one condition (real maximum: 0). */
  MAX_CONDITION_NESTING: 16,
} as const;

export type MarkdownLimit = keyof typeof MARKDOWN_LIMITS;

export interface LimitProblem {
  limit: MarkdownLimit;
  message: string;
}

/** What `measureMarkdown` finds in a text: the largest of each measured quantity. */
export interface MarkdownFigures {
  size: number;
  longestLine: number;
  nesting: number;
  htmlNesting: number;
  liquidNesting: number;
  bracketNesting: number;
  emphasisNesting: number;
  tableRows: number;
  tableColumns: number;
  tableCells: number;
  conditionBranches: number;
  conditionLength: number;
  conditionNesting: number;
}

/** Liquid tags that open a block closed by `{% end<name> %}`. */
const LIQUID_BLOCKS = new Set([
  'hint',
  'tabs',
  'tab',
  'stepper',
  'step',
  'columns',
  'column',
  'updates',
  'update',
  'if',
  'code',
  'prompt',
  'content-ref',
  'openapi',
  'swagger',
  'openapi-operation',
  'openapi-schemas',
  'openapi-webhook',
]);

/** HTML elements that never have content, and so never open a level. */
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

const TAB = 9;
const SPACE = 32;

interface ListFrame {
  /** The column content of the item starts at: a marker at a lower column closes it. */
  contentColumn: number;
  /** Lists and quotes around that content, this item included. */
  depth: number;
}

type Check = (limit: MarkdownLimit, value: number) => void;

class LimitExceeded extends Error {
  readonly problem: LimitProblem;
  constructor(problem: LimitProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

const describe: Record<MarkdownLimit, string> = {
  MAX_PAGE_SIZE: 'the page is too large: at most {max} characters (got {value})',
  MAX_NESTING: 'lists and quotes are nested too deeply: at most {max} levels (got {value})',
  MAX_HTML_NESTING: 'HTML elements are nested too deeply: at most {max} levels (got {value})',
  MAX_LIQUID_NESTING: 'blocks ({% … %} tags) are nested too deeply: at most {max} levels (got {value})',
  MAX_BRACKET_NESTING: 'square brackets are nested too deeply: at most {max} open at once (got {value})',
  MAX_EMPHASIS_NESTING: 'emphasis is nested too deeply: at most {max} * or _ open at once (got {value})',
  MAX_TABLE_COLUMNS: 'a table has too many columns: at most {max} (got {value})',
  MAX_TABLE_CELLS: 'a table has too many cells: at most {max} (got {value})',
  MAX_CONDITION_BRANCHES: 'an {% if %} block has too many branches: at most {max} (got {value})',
  MAX_CONDITION_LENGTH: 'a condition is too long: at most {max} characters (got {value})',
  MAX_CONDITION_NESTING: 'a condition is nested too deeply: at most {max} levels (got {value})',
};

function problemOf(limit: MarkdownLimit, value: number): LimitProblem {
  const message = describe[limit].replace('{max}', String(MARKDOWN_LIMITS[limit])).replace('{value}', String(value));
  return { limit, message: `${message} (limit ${limit})` };
}

/**
 * The container markers a line starts with (`>` and list markers, in any order), the column its
 * first list marker is at, and the column its content starts at.
 */
function linePrefix(line: string): { quotes: number; lists: number; firstList: number; firstColumn: number; content: number } {
  let i = 0;
  let column = 0;
  let quotes = 0;
  let lists = 0;
  let firstList = -1;
  let firstColumn = -1;
  for (;;) {
    while (i < line.length && (line.charCodeAt(i) === SPACE || line.charCodeAt(i) === TAB)) {
      column = line.charCodeAt(i) === TAB ? column + 4 - (column % 4) : column + 1;
      i++;
    }
    if (i >= line.length) break;
    const c = line[i];
    if (firstColumn < 0) firstColumn = column;
    if (c === '>') {
      quotes++;
      i++;
      column++;
      continue;
    }
    let end = i;
    if (c === '-' || c === '*' || c === '+') end = i + 1;
    else {
      while (end < line.length && end - i < 9 && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
      end = end > i && (line[end] === '.' || line[end] === ')') ? end + 1 : i;
    }
    if (end === i || !(end === line.length || line.charCodeAt(end) === SPACE || line.charCodeAt(end) === TAB)) break;
    // `---` and `***` are rules, not lists; `- - -` too, but counting it costs nothing real.
    if (firstList < 0) firstList = column;
    lists++;
    column += end - i;
    i = end;
  }
  return { quotes, lists, firstList, firstColumn: firstColumn < 0 ? column : firstColumn, content: column };
}

/** The number of cells of a table row (`| a | b |`, `a | b`), escaped pipes left out. */
function rowCells(line: string): number {
  const t = line.trim();
  let pipes = 0;
  for (let i = 0; i < t.length; i++) if (t[i] === '|' && t[i - 1] !== '\\') pipes++;
  return pipes + 1 - (t.startsWith('|') ? 1 : 0) - (t.endsWith('|') && t.length > 1 && !t.endsWith('\\|') ? 1 : 0);
}

/** What `conditionProblem` says of a condition too costly to keep (as opposed to a syntax it reads otherwise). */
const COST_PROBLEM = /EXPRESSION_TOO_|too (long|deep|many|large|complex|costly)|at most|nest|limit/i;

/** Whether a line is a table's delimiter row (`| - | :-: |`), read without a backtracking expression. */
function isDelimiterRow(line: string): boolean {
  let t = line.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|')) t = t.slice(0, -1);
  if (t.trim() === '') return false;
  return t.split('|').every((cell) => /^:?-+:?$/.test(cell.trim()));
}

/**
 * A line without its code spans: a run of backticks up to the next run of the same length. The
 * runs are listed once and each length's next run found by a pointer, so the scan stays linear.
 */
function withoutCodeSpans(line: string): string {
  if (!line.includes('`')) return line;
  const runs: { start: number; end: number }[] = [];
  for (let i = line.indexOf('`'); i >= 0; i = line.indexOf('`', i)) {
    let end = i;
    while (end < line.length && line[end] === '`') end++;
    runs.push({ start: i, end });
    i = end;
  }
  const byLength = new Map<number, number[]>();
  runs.forEach((r, i) => {
    const list = byLength.get(r.end - r.start);
    if (list) list.push(i);
    else byLength.set(r.end - r.start, [i]);
  });
  const next = new Map<number, number>();
  let out = '';
  let position = 0;
  for (let i = 0; i < runs.length;) {
    const length = runs[i].end - runs[i].start;
    const list = byLength.get(length)!;
    let p = next.get(length) ?? 0;
    while (p < list.length && list[p] <= i) p++;
    next.set(length, p);
    if (p >= list.length) {
      i++;
      continue;
    }
    out += line.slice(position, runs[i].start);
    position = runs[list[p]].end;
    i = list[p] + 1;
  }
  return out + line.slice(position);
}

/** The deepest nesting of parentheses and brackets in a condition. */
function expressionNesting(expression: string): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') max = Math.max(max, ++depth);
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
  }
  return max;
}

/**
 * Reads `text` once: its size, longest line, and the deepest or largest of each construct the
 * limits bound. `check` is told each value as it is found (and may throw to stop the scan).
 */
function scan(text: string, check: Check, validate: boolean): MarkdownFigures {
  const figures: MarkdownFigures = {
    size: text.length,
    longestLine: 0,
    nesting: 0,
    htmlNesting: 0,
    liquidNesting: 0,
    bracketNesting: 0,
    emphasisNesting: 0,
    tableRows: 0,
    tableColumns: 0,
    tableCells: 0,
    conditionBranches: 0,
    conditionLength: 0,
    conditionNesting: 0,
  };
  const see = (key: keyof MarkdownFigures, limit: MarkdownLimit, value: number) => {
    if (value > figures[key]) figures[key] = value;
    check(limit, value);
  };
  check('MAX_PAGE_SIZE', text.length);

  const lists: ListFrame[] = [];
  const liquid: { name: string; branches: number }[] = [];
  let html: string[] = [];
  let brackets = 0;
  let emphasis = 0;
  let previousBlank = true;
  let previousLine = '';
  let table: { columns: number; rows: number } | null = null;
  // An HTML table: its cells, and the cells of the row being read.
  let htmlTable: { cells: number; rowCells: number } | null = null;

  const condition = (expression: string) => {
    see('conditionLength', 'MAX_CONDITION_LENGTH', expression.length);
    see('conditionNesting', 'MAX_CONDITION_NESTING', expressionNesting(expression));
    if (validate && expression.trim() !== '') {
      // Conditions GitBook writes that this service's evaluator reads otherwise (`===`) are kept
      // (they hide their content); a condition refused for its size or depth is refused here.
      const problem = conditionProblem(expression);
      if (problem !== null && COST_PROBLEM.test(problem))
        throw new LimitExceeded({ limit: 'MAX_CONDITION_NESTING', message: `${problem} (limit MAX_CONDITION_NESTING)` });
    }
  };

  const liquidTags = (line: string) => {
    let at = line.indexOf('{%');
    while (at >= 0) {
      const end = line.indexOf('%}', at + 2);
      if (end < 0) return;
      const body = line.slice(at + 2, end).trim();
      const name = /^[^\s"']*/.exec(body)![0];
      const args = body.slice(name.length).trim();
      if (LIQUID_BLOCKS.has(name)) {
        liquid.push({ name, branches: 1 });
        see('liquidNesting', 'MAX_LIQUID_NESTING', liquid.length);
        if (name === 'if') {
          see('conditionBranches', 'MAX_CONDITION_BRANCHES', 1);
          condition(args);
        }
      } else if (name === 'elif' || name === 'else') {
        const frame = liquid.findLast((f) => f.name === 'if');
        if (frame) see('conditionBranches', 'MAX_CONDITION_BRANCHES', ++frame.branches);
        if (name === 'elif') condition(args);
      } else if (name.startsWith('end') && name.length > 3) {
        // The stack is never deeper than the limit, so the search is bounded.
        const open = liquid.findLastIndex((f) => f.name === name.slice(3));
        if (open >= 0) liquid.length = open;
      }
      at = line.indexOf('{%', end + 2);
    }
  };

  const htmlTags = (line: string) => {
    let at = line.indexOf('<');
    while (at >= 0) {
      const m = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*?(\/?)>/.exec(line.slice(at, at + 2048));
      if (m) {
        const name = m[2].toLowerCase();
        if (m[1] === '/') {
          const open = html.lastIndexOf(name);
          if (open >= 0) html.length = open;
          if (name === 'table' && htmlTable) htmlTable = null;
        } else if (m[3] !== '/' && !VOID_ELEMENTS.has(name)) {
          html.push(name);
          see('htmlNesting', 'MAX_HTML_NESTING', html.length);
          if (name === 'table') htmlTable = { cells: 0, rowCells: 0 };
          else if (htmlTable && name === 'tr') htmlTable.rowCells = 0;
          else if (htmlTable && (name === 'td' || name === 'th')) {
            see('tableColumns', 'MAX_TABLE_COLUMNS', ++htmlTable.rowCells);
            see('tableCells', 'MAX_TABLE_CELLS', ++htmlTable.cells);
          }
        }
        at = line.indexOf('<', at + m[0].length);
      } else at = line.indexOf('<', at + 1);
    }
  };

  // The fenced code block being read: liquid tags in it are text. It ends at its closing fence,
  // or where a line leaves the container it was opened in.
  let fence: { marker: string; quotes: boolean; indent: number } | null = null;

  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    start = end + 1;
    if (line.length > figures.longestLine) figures.longestLine = line.length;
    const blank = line.trim() === '';
    if (blank) {
      // A blank line ends paragraphs (brackets), tables and HTML blocks (GitBook's `<details>` aside).
      brackets = 0;
      emphasis = 0;
      table = null;
      html = html.filter((name) => name === 'details');
      previousBlank = true;
      previousLine = line;
      continue;
    }

    // In a fenced code block everything is text, up to its closing fence or a line outside its container.
    if (fence) {
      const indent = line.length - line.trimStart().length;
      const t = line.trimStart();
      if ((fence.quotes && !t.startsWith('>')) || (!fence.quotes && indent < fence.indent)) fence = null;
      else {
        const closing = /^(`{3,}|~{3,})\s*$/.exec(fence.quotes ? t.replace(/^(>[ \t]?)+/, '').trimStart() : t)?.[1];
        if (closing && closing[0] === fence.marker[0] && closing.length >= fence.marker.length) fence = null;
        previousBlank = false;
        previousLine = '';
        continue;
      }
    }

    // Lists and quotes: the items still open around this line, then the markers it starts with.
    const prefix = linePrefix(line);
    if (prefix.lists > 0) {
      while (lists.length > 0 && lists[lists.length - 1].contentColumn > prefix.firstList) lists.pop();
      const around = lists.length > 0 ? lists[lists.length - 1].depth : 0;
      const depth = Math.max(around, prefix.quotes) + prefix.lists;
      see('nesting', 'MAX_NESTING', depth);
      lists.push({ contentColumn: prefix.content, depth });
    } else {
      if (previousBlank) while (lists.length > 0 && lists[lists.length - 1].contentColumn > prefix.firstColumn) lists.pop();
      const around = lists.length > 0 && prefix.firstColumn >= lists[lists.length - 1].contentColumn ? lists[lists.length - 1].depth : 0;
      see('nesting', 'MAX_NESTING', around + prefix.quotes);
    }
    const content = line.slice(Math.min(line.length, prefix.content)).trimStart();

    const fenceMarker = /^(`{3,}|~{3,})/.exec(content)?.[1];
    if (fenceMarker) {
      fence = { marker: fenceMarker, quotes: prefix.quotes > 0, indent: prefix.lists > 0 ? prefix.content : 0 };
      previousBlank = false;
      previousLine = '';
      continue;
    }
    if (content.startsWith('{%')) liquidTags(content);
    // HTML and brackets outside code: code spans (`<space>`, `a[0]`) are text.
    const prose = withoutCodeSpans(content);
    if (prose.includes('<')) htmlTags(prose);

    // Tables: a delimiter row under a header row opens one; rows follow until a blank line.
    if (table && content.includes('|')) {
      table.rows++;
      figures.tableRows = Math.max(figures.tableRows, table.rows);
      see('tableCells', 'MAX_TABLE_CELLS', table.rows * table.columns);
    } else if (content.includes('-') && isDelimiterRow(content) && previousLine.includes('|')) {
      const columns = Math.max(rowCells(content), 1);
      table = { columns, rows: 1 };
      see('tableColumns', 'MAX_TABLE_COLUMNS', columns);
      see('tableCells', 'MAX_TABLE_CELLS', columns);
    } else table = null;

    // Square brackets open at once (escaped ones are text).
    for (let i = prose.indexOf('['), j = prose.indexOf(']'); i >= 0 || j >= 0;) {
      if (i >= 0 && (j < 0 || i < j)) {
        if (prose[i - 1] !== '\\') see('bracketNesting', 'MAX_BRACKET_NESTING', ++brackets);
        i = prose.indexOf('[', i + 1);
      } else {
        if (prose[j - 1] !== '\\' && brackets > 0) brackets--;
        j = prose.indexOf(']', j + 1);
      }
    }

    // Emphasis delimiters open at once (see emphasisOpen).
    if (prose.includes('*') || prose.includes('_'))
      emphasis = emphasisOpen(prose, emphasis, (open) => see('emphasisNesting', 'MAX_EMPHASIS_NESTING', open));

    previousBlank = false;
    previousLine = line;
  }
  return figures;
}

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);
const isPunctuation = (c: string | undefined) => c !== undefined && /[\p{P}\p{S}]/u.test(c);

/**
 * The emphasis delimiters left open after `prose` (a line's text outside code spans), from `open`
 * before it, each count reached on the way told to `seen`: CommonMark's delimiter runs of `*` or
 * `_` that may open emphasis (left-flanking) add their length, runs that may only close take theirs
 * back. Micromark resolves emphasis by looking
 * back through the delimiters still open, so its cost grows with the square of how many are open
 * at once (4,000 nested take about half a second; emphasis side by side stays linear). An `_`
 * inside a word (`snake_case`) neither opens nor closes; escaped delimiters are text. One pass.
 */
function emphasisOpen(prose: string, open: number, seen: (open: number) => void): number {
  for (let i = 0; i < prose.length;) {
    const c = prose[i];
    if ((c !== '*' && c !== '_') || prose[i - 1] === '\\') {
      i++;
      continue;
    }
    let end = i;
    while (prose[end] === c) end++;
    const before = prose[i - 1];
    const after = prose[end];
    const left = !isSpace(after) && (!isPunctuation(after) || isSpace(before) || isPunctuation(before));
    const right = !isSpace(before) && (!isPunctuation(before) || isSpace(after) || isPunctuation(after));
    const opens = c === '*' ? left : left && (!right || isPunctuation(before));
    const closes = c === '*' ? right : right && (!left || isPunctuation(after));
    if (opens) seen((open += end - i));
    else if (closes) open = Math.max(0, open - (end - i));
    i = end;
  }
  return open;
}

/** The figures of a text (for measuring real content; see MarkdownFigures). */
export function measureMarkdown(text: string): MarkdownFigures {
  return scan(text, () => {}, false);
}

/** The first limit `text` exceeds, or null. One linear pass; stops at the first problem. */
export function markdownLimitProblem(text: string): LimitProblem | null {
  try {
    scan(
      text,
      (limit, value) => {
        if (value > MARKDOWN_LIMITS[limit]) throw new LimitExceeded(problemOf(limit, value));
      },
      true,
    );
    return null;
  } catch (error) {
    if (error instanceof LimitExceeded) return error.problem;
    throw error;
  }
}

const MAX_FENCE = 64;
const LONG_BACKTICKS = new RegExp(`\`{${MAX_FENCE},}`, 'g');

/**
 * Markdown that shows `text` as text, whatever it holds: one fenced code block whose fence is
 * longer than any run of backticks in the text, so the content cannot close it. Nothing in it is
 * parsed as markdown, so its cost is linear; a text past MAX_PAGE_SIZE is cut to it. Conditional
 * blocks are left out whole (./conditional-blocks.ts): shown as text, they would show every reader
 * the branches their claims exclude.
 */
export function markdownAsText(text: string, note?: string): string {
  const heading = note
    ? `${note
        .slice(0, 500)
        .replace(/\s+/g, ' ')
        .replace(/[\\`*[\]<>{}#|!~$&]/g, '\\$&')}\n\n`
    : '';
  // Room for the note and two fences; backtick runs past MAX_FENCE are cut to it, so the fences stay short.
  const body = withoutConditionalBlocks(text)
    .slice(0, MARKDOWN_LIMITS.MAX_PAGE_SIZE - heading.length - 2 * MAX_FENCE - 16)
    .replace(LONG_BACKTICKS, '`'.repeat(MAX_FENCE - 1));
  let longest = 0;
  let run = 0;
  for (let i = 0; i < body.length; i++) {
    run = body.charCodeAt(i) === 96 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${heading}${fence}text\n${body}${body.endsWith('\n') ? '' : '\n'}${fence}\n`;
}

/** The deepest nesting of a JSON value (arrays and objects), read without recursion; stops past `max`. */
export function jsonDepth(value: unknown, max = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > max) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * How deep a client-sent GitBook JSON document may nest (objects and arrays): a block's nodes,
 * a text's leaves, a leaf's marks are each a level or two, so real documents stay far below.
 */
export const MAX_DOCUMENT_DEPTH = 1_000;

/** A problem with a client-sent JSON document: nested past MAX_DOCUMENT_DEPTH. */
export function documentLimitProblem(document: unknown): LimitProblem | null {
  const depth = jsonDepth(document, MAX_DOCUMENT_DEPTH);
  if (depth <= MAX_DOCUMENT_DEPTH) return null;
  return {
    limit: 'MAX_NESTING',
    message: `the document is nested too deeply: at most ${MAX_DOCUMENT_DEPTH} levels of objects and arrays (limit MAX_NESTING)`,
  };
}
