/**
 * Conditional blocks (`{% if %}` … `{% endif %}`, with their `elif` and `else` branches) decide
 * what a reader sees. Where a text is shown as text rather than converted (content over the limits,
 * or over its conversion budget), nobody decided for the reader which branches they may see, so
 * the blocks are left out whole.
 */
const TAG_NAME = /-?\s*([a-z]+)/y;

/**
 * The text without its conditional blocks (an `if` never closed hides the rest). One pass: each
 * `{%` is looked at once, and the `%}` closing it is found by a search that only moves forward.
 */
export function withoutConditionalBlocks(text: string): string {
  let out = '';
  let depth = 0;
  let from = 0;
  let pos = 0;
  let close = -1;
  for (;;) {
    const open = text.indexOf('{%', pos);
    if (open < 0) break;
    if (close < open + 2) close = text.indexOf('%}', open + 2);
    if (close < 0) break;
    TAG_NAME.lastIndex = open + 2;
    const name = TAG_NAME.exec(text)?.[1];
    pos = open + 2;
    if (name === 'if') {
      if (depth === 0) out += text.slice(from, open);
      depth++;
      pos = close + 2;
    } else if (name === 'endif') {
      if (depth > 0 && --depth === 0) from = close + 2;
      pos = close + 2;
    }
  }
  return depth === 0 ? out + text.slice(from) : out;
}
