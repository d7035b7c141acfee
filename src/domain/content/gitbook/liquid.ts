/**
 * GitBook's liquid-style tags (`{% hint style="info" %}`, `{% endhint %}`, `{% embed url="…" %}`)
 * as markdown syntax: a micromark flow construct reads a line that starts with `{%` and holds a
 * complete tag as one `liquidLine` node, so tags inside code blocks, code spans or HTML stay text
 * and a tag line interrupts a paragraph, as GitBook writes them right after the content they close.
 *
 * A line is then split into its tags and the text between them (`{% tab title="A" %} text
 * {% endtab %}` is one line) by scanning it once, quotes respected.
 */
import type { CompileContext, Extension as FromMarkdownExtension, Token } from 'mdast-util-from-markdown';
import type { Code, Construct, Effects, Extension, State } from 'micromark-util-types';
import type { Data, Literal } from 'mdast';

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    gitbookLiquidLine: 'gitbookLiquidLine';
  }
}

/** A line of one or more liquid tags, maybe with text between them. */
export interface LiquidLine extends Literal {
  type: 'liquidLine';
  data?: Data;
}

declare module 'mdast' {
  interface RootContentMap {
    liquidLine: LiquidLine;
  }
}

const LEFT_BRACE = 123;
const PERCENT = 37;
const RIGHT_BRACE = 125;

/** The end of input or of a line: micromark codes line endings as -5 (CR), -4 (LF) and -3 (CRLF). */
const isLineEnd = (code: Code): boolean => code === null || code < -2;

function tokenizeLiquidLine(this: unknown, effects: Effects, ok: State, nok: State): State {
  let closed = false;
  let previous: Code = null;
  const start: State = (code) => {
    if (code !== LEFT_BRACE) return nok(code);
    effects.enter('gitbookLiquidLine');
    effects.consume(code);
    return percent;
  };
  const percent: State = (code) => {
    if (code !== PERCENT) return nok(code);
    effects.consume(code);
    return rest;
  };
  const rest: State = (code) => {
    if (isLineEnd(code)) {
      if (!closed) return nok(code);
      effects.exit('gitbookLiquidLine');
      return ok(code);
    }
    if (code === RIGHT_BRACE && previous === PERCENT) closed = true;
    previous = code;
    effects.consume(code);
    return rest;
  };
  return start;
}

const liquidLineConstruct: Construct = { name: 'gitbookLiquidLine', tokenize: tokenizeLiquidLine };

/** The micromark extension: a flow construct for lines starting with `{%`. */
export const liquidSyntax: Extension = { flow: { [LEFT_BRACE]: liquidLineConstruct } };

/** The mdast-util-from-markdown extension turning the construct's token into a `liquidLine` node. */
export const liquidFromMarkdown: FromMarkdownExtension = {
  enter: {
    gitbookLiquidLine(this: CompileContext, token: Token) {
      this.enter({ type: 'liquidLine', value: '' }, token);
    },
  },
  exit: {
    gitbookLiquidLine(this: CompileContext, token: Token) {
      const node = this.stack[this.stack.length - 1];
      if (node.type === 'liquidLine') node.value = this.sliceSerialize(token);
      this.exit(token);
    },
  },
};

export interface LiquidTag {
  kind: 'tag';
  /** `hint`, `endhint`, `include`, `if`… */
  name: string;
  /** What follows the name, as written. */
  args: string;
  attrs: Record<string, string>;
  /** The tag as written. */
  raw: string;
}
export type LiquidSegment = LiquidTag | { kind: 'text'; text: string };

/** Splits a tag line into tags and the text around them. */
export function splitLiquidLine(line: string): LiquidSegment[] {
  const out: LiquidSegment[] = [];
  let i = 0;
  let textStart = 0;
  while (i < line.length) {
    if (line[i] === '{' && line[i + 1] === '%') {
      const end = tagEnd(line, i + 2);
      if (end < 0) break;
      const text = line.slice(textStart, i);
      if (text.trim() !== '') out.push({ kind: 'text', text: text.trim() });
      out.push(readTag(line.slice(i, end)));
      i = end;
      textStart = end;
    } else i++;
  }
  const text = line.slice(textStart);
  if (text.trim() !== '') out.push({ kind: 'text', text: text.trim() });
  return out;
}

/** The index just past the `%}` closing a tag whose body starts at `from`, or -1. */
function tagEnd(line: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote || (quote === '"' && c === '\u201d')) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '%' && line[i + 1] === '}') {
      return i + 2;
    }
  }
  // An unbalanced quote: close at the first `%}` instead.
  const plain = line.indexOf('%}', from);
  return plain < 0 ? -1 : plain + 2;
}

function readTag(raw: string): LiquidTag {
  const body = raw.slice(2, -2).trim();
  const name = /^[^\s"']*/.exec(body)![0];
  const args = body.slice(name.length).trim();
  return { kind: 'tag', name, args, attrs: readAttributes(args), raw };
}

/** `key="value"` pairs (double, single or typographic quotes, or bare words). */
function readAttributes(args: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  let i = 0;
  while (i < args.length) {
    while (i < args.length && /\s/.test(args[i])) i++;
    const keyStart = i;
    while (i < args.length && /[\w-]/.test(args[i])) i++;
    const key = args.slice(keyStart, i);
    if (key === '' || args[i] !== '=') {
      i = Math.max(i + 1, keyStart + 1);
      while (i < args.length && !/\s/.test(args[i])) i++;
      continue;
    }
    i++;
    const open = args[i];
    let value: string;
    if (open === '"' || open === "'" || open === '\u201c') {
      const start = ++i;
      while (i < args.length && args[i] !== open && !(open !== "'" && (args[i] === '"' || args[i] === '\u201d'))) i++;
      value = args.slice(start, i);
      i++;
    } else {
      const start = i;
      while (i < args.length && !/\s/.test(args[i])) i++;
      value = args.slice(start, i);
    }
    attrs[key] = value;
  }
  return attrs;
}

/** The first quoted argument of a tag (`{% include "path" %}`), or its arguments as written. */
export function quotedArgument(tag: LiquidTag): string {
  const m = /^["'\u201c]([^"'\u201d]*)["'\u201d]/.exec(tag.args);
  return m ? m[1] : tag.args;
}
