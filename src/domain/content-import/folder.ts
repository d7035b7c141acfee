/**
 * A folder of files (an unpacked zip, a wiki's repository) as pages and files, read with the git
 * layout reader (`domain/git/layout.ts`: SUMMARY.md or the folders, front matter, relative links
 * and assets) after what only imports need: junk and a wrapping folder dropped, HTML documents
 * converted to markdown, and GitHub wiki conventions (`Home.md` first, `[[Page]]` links,
 * `_Sidebar`/`_Footer` left out). Pure: no I/O.
 */
import { readLayout, relativePath, type ImportedLayout } from '../git/layout.ts';
import { slugify } from '../content/tree.ts';
import { htmlToMarkdown } from './html.ts';
import { convertWikiLinks } from './markdown.ts';

export interface FolderFile {
  /** Relative path with `/` separators, no leading `/`. */
  path: string;
  bytes: Uint8Array;
}

export interface FolderOptions {
  /** GitHub wiki conventions: `Home.md` first, `_Sidebar`/`_Footer`/`_Header` left out, `[[Page]]` links. */
  wiki?: boolean;
}

const MARKDOWN = /\.(md|markdown)$/i;
const HTML = /\.html?$/i;
const IGNORED = /(^|\/)(__MACOSX|\.git|node_modules|\.DS_Store|Thumbs\.db)(\/|$)|(^|\/)\.(?!gitbook\.yaml$)[^/]*$/;
const WIKI_SPECIAL = /(^|\/)_(sidebar|footer|header)\.(md|markdown)$/i;

const decoder = new TextDecoder('utf-8');
const text = (bytes: Uint8Array) => decoder.decode(bytes).replace(/^\uFEFF/, '');

/** Drops ignored entries (OS junk, dot files but `.gitbook…`, `..` paths) and a single folder wrapping everything. */
export function normalizeFolder(files: FolderFile[]): FolderFile[] {
  let kept = files
    .map((f) => ({ ...f, path: f.path.replace(/\\/g, '/').replace(/^(\.?\/)+/, '') }))
    .filter((f) => f.path !== '' && !f.path.endsWith('/') && !IGNORED.test(f.path) && !f.path.split('/').includes('..'));
  for (;;) {
    const tops = new Set(kept.map((f) => f.path.split('/')[0]));
    if (tops.size !== 1 || kept.some((f) => !f.path.includes('/'))) break;
    const [top] = tops;
    kept = kept.map((f) => ({ ...f, path: f.path.slice(top.length + 1) }));
  }
  return kept;
}

/** The wiki page file a `[[Name]]` names: `Install Guide` is `Install-Guide.md`, case aside. */
function wikiIndex(paths: string[]): (name: string) => string | null {
  const byName = new Map<string, string>();
  for (const path of paths) {
    const base = path.replace(/^.*\//, '').replace(MARKDOWN, '').toLowerCase();
    if (!byName.has(base)) byName.set(base, path);
  }
  return (name) => byName.get(name.trim().replace(/\s+/g, '-').toLowerCase()) ?? byName.get(name.trim().toLowerCase()) ?? null;
}

export interface FolderImport {
  layout: ImportedLayout;
  /** Bytes of every file of the folder, by its path after normalization. */
  bytes: Map<string, Uint8Array>;
}

/**
 * Reads a folder as pages and files. Throws LayoutError (from the layout reader) when it holds no
 * document.
 */
export function readFolder(input: FolderFile[], options: FolderOptions = {}): FolderImport {
  const files = normalizeFolder(input);
  const markdown: Record<string, string> = {};
  const assets: string[] = [];
  let gitbookYaml: string | null = null;
  const documents = files.filter((f) => MARKDOWN.test(f.path) && !(options.wiki && WIKI_SPECIAL.test(f.path))).map((f) => f.path);
  const findWikiPage = wikiIndex(documents);
  for (const file of files) {
    if (file.path === '.gitbook.yaml') gitbookYaml = text(file.bytes);
    else if (MARKDOWN.test(file.path)) {
      if (options.wiki && WIKI_SPECIAL.test(file.path)) continue;
      let body = text(file.bytes);
      if (options.wiki) {
        body = convertWikiLinks(body, (name) => {
          const target = findWikiPage(name);
          return target === null ? null : encodeURI(relativePath(file.path, target));
        });
      }
      markdown[file.path] = body;
    } else if (HTML.test(file.path)) {
      // Converted under its own path, so that links to `page.html` still find it.
      markdown[file.path] = htmlToMarkdown(text(file.bytes), { mainContent: true }).markdown;
    } else {
      assets.push(file.path);
    }
  }
  if (options.wiki && gitbookYaml === null) {
    const home = documents.find((p) => /^home\.(md|markdown)$/i.test(p));
    if (home) gitbookYaml = `structure:\n  readme: ${JSON.stringify(home)}\n`;
  }
  const layout = readLayout({ markdown, assets, gitbookYaml });
  // Pages read from HTML files get slugs without the extension.
  for (const [id, path] of Object.entries(layout.pageFiles)) {
    const page = layout.pages[id];
    if (!HTML.test(path) || !HTML.test(page.slug)) continue;
    const taken = new Set(
      Object.values(layout.pages)
        .filter((p) => p.parentId === page.parentId && p.id !== id)
        .map((p) => p.slug),
    );
    const base = slugify(page.slug.replace(HTML, ''));
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    page.slug = slug;
  }
  return { layout, bytes: new Map(files.map((f) => [f.path, f.bytes])) };
}
