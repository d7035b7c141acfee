/**
 * Reading markdown in GitBook's Git Sync dialect into an mdast tree whose GitBook constructs are
 * nodes of their own: CommonMark and GFM, `$$…$$` math (remark-math, double dollars only, so
 * prices stay text), liquid tags (./liquid.ts) and `<details>` sections.
 *
 * After parsing, each list of sibling blocks is nested: a tag and its `{% end… %}` become one
 * `liquidBlock` holding what lies between them, `<details>` … `</details>` a `detailsBlock`.
 * A tag without its end tag stays a `liquidTag` (embeds, files and includes are written that
 * way); an end tag without its start stays a `liquidTag` too, so it remains visible.
 */
import { createRequire } from 'node:module';
import type { Html, Parent, Root, RootContent } from 'mdast';
import type remarkMathPlugin from 'remark-math';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';
import { blankFrontMatter, EVERY_GFM_CONSTRUCT, processorsByGfmConstructs, remarkGfmFor, type GfmConstructs } from '../markdown-parse.ts';
import { MAX_DEPTH } from './nodes.ts';
import { liquidFromMarkdown, liquidSyntax, splitLiquidLine, type LiquidTag } from './liquid.ts';

export interface LiquidTagNode extends Parent {
  type: 'liquidTag';
  tag: LiquidTag;
  children: [];
}
export interface LiquidBlockNode extends Parent {
  type: 'liquidBlock';
  tag: LiquidTag;
  children: RootContent[];
}
export interface DetailsBlockNode extends Parent {
  type: 'detailsBlock';
  /** The opening HTML (`<details open>` and maybe `<summary>…</summary>`). */
  opening: string;
  children: RootContent[];
}

declare module 'mdast' {
  interface RootContentMap {
    liquidTag: LiquidTagNode;
    liquidBlock: LiquidBlockNode;
    detailsBlock: DetailsBlockNode;
  }
}

function remarkGitbookSyntax(this: Processor) {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(liquidSyntax);
  (data.fromMarkdownExtensions ??= []).push(liquidFromMarkdown);
}

/**
 * remark-math brings KaTeX along (about 8 MB of a process's memory), so it loads the first time a
 * text holds `$$`: text without two dollars in a row has no math to find, and parses the same
 * either way.
 */
let remarkMath: typeof remarkMathPlugin | undefined;
const loadRemarkMath = () =>
  (remarkMath ??= (createRequire(import.meta.url)('remark-math') as { default: typeof remarkMathPlugin }).default);

/**
 * The parser of GitBook markdown, with the optional GFM constructs in `kinds` (see `remarkGfmFor`;
 * all by default), and with `$$…$$` math unless `math` is false.
 */
export function gitbookProcessor(kinds: GfmConstructs = EVERY_GFM_CONSTRUCT, math = true) {
  const base = unified().use(remarkParse).use(remarkGfmFor, kinds);
  const withMath = math ? base.use(loadRemarkMath(), { singleDollarTextMath: false }) : base;
  return withMath.use(remarkGitbookSyntax).freeze();
}

/** Each text is parsed with only the optional constructs it has markers for, and with math only when it holds `$$`. */
const withoutMath = processorsByGfmConstructs((kinds) => gitbookProcessor(kinds, false));
const withMath = processorsByGfmConstructs((kinds) => gitbookProcessor(kinds, true));
const processorFor = (text: string) => (text.includes('$$') ? withMath(text) : withoutMath(text));

/** Parses GitBook markdown (a leading front-matter block is skipped) into a nested mdast tree. */
export function parseGitbookMarkdown(markdown: string): Root {
  const text = blankFrontMatter(markdown);
  const root = processorFor(text).parse(text);
  root.children = nest(root.children);
  return root;
}

/** Block content written on a tag line (`{% tab %} text {% endtab %}`), parsed on its own. */
function parseInline(text: string): RootContent[] {
  return processorFor(text).parse(text).children;
}

const FLOW_PARENTS = new Set(['blockquote', 'listItem', 'footnoteDefinition']);

interface Frame {
  name: string;
  opener: LiquidTagNode | Html;
  children: RootContent[];
}

const isDetailsOpening = (node: Html) => /^<details[\s>]/i.test(node.value.trimStart()) && !/<\/details\s*>/i.test(node.value);
const isDetailsClosing = (node: Html) => /^<\/details\s*>$/i.test(node.value.trim());

/** Lines that end an HTML block for GitBook although CommonMark runs the block on to a blank line. */
const isBoundaryLine = (line: string) => {
  const t = line.trim();
  return (t.startsWith('{%') && t.includes('%}')) || /^<\/?details[\s>]/i.test(t);
};

/**
 * Splits an HTML block at tag lines and `<details>` lines: GitBook writes `{% endcolumn %}` or
 * `</details>` right under a `<figure>` line, which CommonMark reads as part of the HTML block.
 */
function splitHtml(node: Html): RootContent[] {
  const lines = node.value.split('\n');
  if (lines.length < 2 || !lines.some(isBoundaryLine)) return [node];
  const out: RootContent[] = [];
  let html: string[] = [];
  const flush = () => {
    if (html.length) out.push({ type: 'html', value: html.join('\n') });
    html = [];
  };
  for (const line of lines) {
    if (!isBoundaryLine(line)) {
      html.push(line);
      continue;
    }
    flush();
    const t = line.trim();
    out.push(t.startsWith('{%') ? { type: 'liquidLine', value: t } : { type: 'html', value: t });
  }
  flush();
  return out;
}

function nest(input: RootContent[], depth = 0): RootContent[] {
  // Past any nesting GitBook content has, content is left as parsed (and read as text).
  if (depth > MAX_DEPTH) return input;
  const expanded: RootContent[] = [];
  for (const node of input.flatMap((n) => (n.type === 'html' ? splitHtml(n) : [n]))) {
    if (node.type === 'liquidLine') {
      for (const segment of splitLiquidLine(node.value)) {
        if (segment.kind === 'tag') expanded.push({ type: 'liquidTag', tag: segment, children: [], position: node.position });
        else expanded.push(...parseInline(segment.text));
      }
    } else {
      if (FLOW_PARENTS.has(node.type) && 'children' in node)
        (node as Parent).children = nest((node as Parent).children as RootContent[], depth + 1);
      if (node.type === 'list') for (const item of node.children) item.children = nest(item.children, depth + 1) as typeof item.children;
      expanded.push(node);
    }
  }

  const root: Frame = { name: '', opener: { type: 'html', value: '' }, children: [] };
  const stack: Frame[] = [root];
  const top = () => stack[stack.length - 1];
  /** Gives up on an unclosed frame: its opener and content join the frame below as they were. */
  const flatten = () => {
    const frame = stack.pop()!;
    top().children.push(frame.opener, ...frame.children);
  };
  for (const node of expanded) {
    if (node.type === 'liquidTag') {
      const { name } = node.tag;
      const closes = name.startsWith('end') ? name.slice(3) : null;
      if (closes !== null && closes !== '') {
        const at = stack.findLastIndex((f, i) => i > 0 && f.name === closes);
        if (at > 0) {
          while (stack.length - 1 > at) flatten();
          const frame = stack.pop()!;
          top().children.push({
            type: 'liquidBlock',
            tag: (frame.opener as LiquidTagNode).tag,
            children: frame.children,
            position: frame.opener.position,
          });
          continue;
        }
        top().children.push(node);
        continue;
      }
      if (name === 'else' || name === 'elif' || name === '') {
        top().children.push(node);
        continue;
      }
      stack.push({ name, opener: node, children: [] });
      continue;
    }
    if (node.type === 'html' && isDetailsOpening(node)) {
      stack.push({ name: '<details>', opener: node, children: [] });
      continue;
    }
    if (node.type === 'html' && isDetailsClosing(node)) {
      const at = stack.findLastIndex((f, i) => i > 0 && f.name === '<details>');
      if (at > 0) {
        while (stack.length - 1 > at) flatten();
        const frame = stack.pop()!;
        top().children.push({ type: 'detailsBlock', opening: (frame.opener as Html).value, children: frame.children });
        continue;
      }
    }
    top().children.push(node);
  }
  while (stack.length > 1) flatten();
  return root.children;
}
