/** The text of a page as search indexes it: the whole page as plain text, and its sections. */
import type { Parents } from 'mdast';
import GithubSlugger from 'github-slugger';
import { collapse, parseMarkdown, textOf } from './markdown-parse.ts';
import { attribute, elementsNamed, parseHtmlFragment } from './raw-html.ts';

export interface Section {
  /** Anchor of the heading (GitHub-style slug, unique within the page); `''` for the intro. */
  id: string;
  /** Heading text; `''` for the intro. */
  title: string;
  /** Heading depth 1–6; 0 for the intro. */
  depth: number;
  /** Plain text of the content up to the next heading of any depth, whitespace-collapsed. */
  body: string;
}

/** The whole document as whitespace-collapsed plain text (headings, body, code and alt texts). */
export function plainText(markdown: string): string {
  return collapse(textOf(parseMarkdown(markdown)));
}

/**
 * Splits a page at its headings (top-level headings of any depth) into sections for search.
 * The text before the first heading is an intro section (id `''`, depth 0), left out when it
 * has no text. Ids are the heading's GitHub-style slug, made unique with `-1`, `-2`…; a GitBook
 * custom anchor in the heading (`<a href="#x" id="x"></a>`) is used instead when present.
 */
export function splitSections(markdown: string): Section[] {
  const tree = parseMarkdown(markdown);
  const slugger = new GithubSlugger();
  slugger.slug(''); // the intro's id: an empty heading then gets `-1`
  const sections: Section[] = [];
  let current: Section = { id: '', title: '', depth: 0, body: '' };
  let parts: string[] = [];
  const flush = () => {
    const body = collapse(parts.join(' '));
    if (current.depth > 0 || body !== '') sections.push({ ...current, body });
  };
  for (const child of tree.children) {
    if (child.type !== 'heading') {
      parts.push(textOf(child));
      continue;
    }
    flush();
    const title = collapse(textOf(child));
    current = { id: slugger.slug(customAnchor(child) ?? title), title, depth: child.depth, body: '' };
    parts = [];
  }
  flush();
  return sections;
}

/** The `id` of the first `<a id>` in a heading's raw HTML (GitBook writes its custom anchors so). */
function customAnchor(heading: Parents): string | undefined {
  for (const child of heading.children) {
    if (child.type !== 'html') continue;
    for (const anchor of elementsNamed(parseHtmlFragment(child.value), 'a')) {
      const id = attribute(anchor, 'id');
      if (id !== undefined && id.trim() !== '') return id.trim();
    }
  }
  return undefined;
}
