import { toString } from 'mdast-util-to-string';
import { newId } from '../ids.ts';
import { positionBetween } from '../positions.ts';
import { markdownAsText, markdownLimitProblem } from '../content/limits.ts';
import { parseMarkdown, percentDecode, resolveRelativePath } from '../content/markdown.ts';
import { allPaths, buildTree, getPage, slugify, type PageMap, type PageNode, type TreeEntry } from '../content/tree.ts';
import { pageFieldsOf, renderFrontMatter, splitFrontMatter, type FrontMatterCover, type PageFrontMatter } from './frontmatter.ts';
import { presentCover, storedLayout } from '../content/page-layout.ts';
import { isExternal, rewriteLinks, splitSuffix } from './links.ts';
import {
  cleanPath,
  encodePath,
  LayoutError,
  parseGitbookYaml,
  parseSummary,
  renderSummary,
  type GitbookConfig,
  type SummaryEntry,
  type SummaryPart,
} from './summary.ts';

/**
 * GitBook's git layout ⇄ a revision's pages and files. Pure: the caller lists the files (texts of
 * the markdown files, paths of the others) and stores what comes back.
 *
 * Reading (`readLayout`): `.gitbook.yaml` picks the root, the readme and the summary; the summary
 * gives the tree (nested lists, `## Heading` groups, items without a link, external links);
 * without one, the tree follows the folders. Each page file gives the page: front matter
 * (`description`, `icon`, `emoji`, `hidden`, `noIndex`, `noRobotsIndex`, `layout`, `cover`), the
 * title from its leading `# Heading` (else the summary's text, else the file name), and the rest
 * as the page's markdown, byte for byte except for link targets: relative links to page files
 * become `gitbook://page/<id>` and links or images pointing at repository files (under
 * `.gitbook/assets/` or anywhere else, with spaces, percent-escapes, `../`) become
 * `gitbook://file/<id>`. GitBook blocks (`{% hint %}`, `{% embed %}`, `{% tabs %}`…) are kept as
 * written.
 *
 * Writing (`renderLayout`) is the inverse: the first top-level page is the readme, a page with
 * children is `<path>/README.md`, others `<path>.md` (paths from slugs), files go to
 * `.gitbook/assets/<name>`, content references become relative paths, and SUMMARY.md lists the
 * tree. Reading what `renderLayout` wrote gives the same pages and files back (same ids when the
 * caller maps paths to the ids it had).
 *
 * Markdown files under `.gitbook/includes/` are reusable contents, not pages: their title comes
 * from their front matter (`title:`) or leading heading, their text is kept like a page's (links
 * rewritten the same way), and `{% include %}` blocks in pages are kept as written, whether or not
 * the file they name exists.
 */

export interface LayoutInput {
  /** Text of every markdown file, by path from the repository root (`/`-separated, no leading `/`). */
  markdown: Record<string, string>;
  /** Paths of every other file (assets); their bytes are not needed here. */
  assets: string[];
  /** Text of `.gitbook.yaml` in the project directory, if there is one. */
  gitbookYaml?: string | null;
  /** Project directory inside the repository (`repoProjectDirectory`); '' or absent: the root. */
  projectDirectory?: string;
}

export interface LayoutIds {
  /** The id for the page at this slug path (`guides/install`); reuse an existing page's id to keep it. */
  pageId?: (slugPath: string) => string;
  /** The id for the file at this repository path; reuse an existing file's id to keep it. */
  fileId?: (path: string) => string;
  /** The id for the reusable content at this path (from the project root: `.gitbook/includes/x.md`). */
  reusableContentId?: (path: string) => string;
}

/** A reusable content read from (or written to) `.gitbook/includes/`. */
export interface LayoutReusableContent {
  id: string;
  title: string;
  /** Path from the project root (`.gitbook/includes/intro.md`). */
  path: string;
  markdown: string;
}

/** Where reusable contents live, from the project root. */
export const INCLUDES_DIR = '.gitbook/includes';

export interface ImportedFile {
  id: string;
  /** Path from the repository root. */
  path: string;
  /** The file name shown for it (the last path segment). */
  name: string;
}

export interface ImportedLayout {
  pages: PageMap;
  files: ImportedFile[];
  /** Page id → the repository path of its file (pages without a file are absent). */
  pageFiles: Record<string, string>;
  reusableContents: LayoutReusableContent[];
  config: GitbookConfig;
  /** Things skipped or guessed (missing files in the summary, unreadable entries). */
  warnings: string[];
}

/**
 * What a page keeps of its files beyond GitBook's page fields, so that a page written back reads
 * as it was written: front matter keys GitBook does not map (`tags`, `name`…), and the summary's
 * text and link title for the page when they are not its title. Stored with the page (`git`).
 */
export interface GitPageFields {
  frontMatter?: Record<string, unknown>;
  /** The summary's entry for the page, valid while the page's title is still `title`. */
  summary?: { title: string; text?: string; linkTitle?: string };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The git fields a page carries (see GitPageFields), if any. */
export function gitFieldsOf(node: PageNode): GitPageFields {
  const git = (node as PageNode & { git?: unknown }).git;
  if (!isObject(git)) return {};
  const out: GitPageFields = {};
  if (isObject(git.frontMatter)) out.frontMatter = git.frontMatter;
  const summary = git.summary;
  if (isObject(summary) && typeof summary.title === 'string') {
    out.summary = { title: summary.title };
    if (typeof summary.text === 'string') out.summary.text = summary.text;
    if (typeof summary.linkTitle === 'string') out.summary.linkTitle = summary.linkTitle;
  }
  return out;
}

type Draft = (
  | { kind: 'file'; file: string }
  | { kind: 'empty' }
  | { kind: 'group'; slug?: string }
  | { kind: 'link'; href: string }
  /** A second entry for a page file already listed (`page.md#anchor`): a link to that page. */
  | { kind: 'pageLink'; file: string; suffix: string }
) & { title: string; linkTitle?: string; children: Draft[] };

/** Where GitBook keeps a space's files, from the root. */
const ASSETS_DIR = '.gitbook/assets';
const join = (...parts: string[]) => cleanPath(parts.filter((p) => p !== '').join('/'));
const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const isReadme = (path: string) => baseName(path).toLowerCase() === 'readme.md';

/** A slug from a file or folder name: kept when it is already URL-safe, else slugified. */
export function slugOf(name: string): string {
  const bare = name.replace(/\.(md|markdown)$/i, '');
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(bare) ? bare : slugify(bare);
}

const H1 = /^#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/** A page file's front matter fields, title (from a leading `# Heading`) and remaining text. */
export function readPageFile(text: string): { fields: PageFrontMatter; title: string | null; body: string } {
  const { data, body: afterFm } = splitFrontMatter(text.replace(/^\uFEFF/, ''));
  const fields = pageFieldsOf(data);
  const lines = afterFm.split('\n');
  let i = 0;
  while (i < lines.length && lines[i].trim() === '') i++;
  const match = i < lines.length ? H1.exec(lines[i].replace(/\r$/, '')) : null;
  if (!match) {
    const fmTitle = typeof data.title === 'string' && data.title.trim() !== '' ? data.title.trim() : null;
    return { fields, title: fmTitle, body: afterFm.replace(/^(?:[ \t]*\r?\n)+/, '') };
  }
  // Plain titles (the usual case) need no parsing.
  const title = /[\\`*_[\]<>&!~]/.test(match[1]) ? toString(parseMarkdown(match[1])).trim() || match[1].trim() : match[1].trim();
  let j = i + 1;
  while (j < lines.length && lines[j].trim() === '' && j < lines.length - 1) j++;
  const body = j >= lines.length ? '' : lines.slice(j).join('\n');
  return { fields, title, body: body.trim() === '' && !body.includes('\n') ? '' : body };
}

/**
 * A reusable content's file: the title from front matter (`title:`), else from a leading
 * `# Heading` as for a page; the text after the front matter is kept whole when the title came
 * from front matter.
 */
export function readIncludeFile(text: string): { title: string | null; body: string } {
  const { data, body } = splitFrontMatter(text.replace(/^\uFEFF/, ''));
  if (typeof data.title === 'string' && data.title.trim() !== '')
    return { title: data.title.trim(), body: body.replace(/^(?:[ \t]*\r?\n)+/, '') };
  const page = readPageFile(text);
  return { title: page.title, body: page.body };
}

/**
 * The folder whose every file is an asset (`.gitbook/assets` under the root `.gitbook.yaml`
 * names), from the repository root; null when `.gitbook.yaml` cannot be read (`readLayout` says why).
 * Known before any page is read: Git Sync stores these files while it reads the pages.
 */
export function assetsFolder(gitbookYaml: string | null | undefined, projectDirectory = ''): string | null {
  try {
    return join(cleanPath(projectDirectory), parseGitbookYaml(gitbookYaml).root, ASSETS_DIR);
  } catch (error) {
    if (error instanceof LayoutError) return null;
    throw error;
  }
}

/**
 * Reads a repository's GitBook layout into pages and files. Throws LayoutError
 * (`NOT_GITBOOK_LAYOUT`) when the root holds no markdown file, (`INVALID_GITBOOK_YAML`) when
 * `.gitbook.yaml` cannot be read.
 */
export function readLayout(input: LayoutInput, ids: LayoutIds = {}): ImportedLayout {
  const pageIdFor = ids.pageId ?? (() => newId());
  const fileIdFor = ids.fileId ?? (() => newId());
  const project = cleanPath(input.projectDirectory ?? '');
  const config = parseGitbookYaml(input.gitbookYaml);
  const base = join(project, config.root);
  const inBase = (path: string) => base === '' || path.startsWith(`${base}/`);
  const includesDir = join(base, INCLUDES_DIR);
  const isInclude = (path: string) => path.startsWith(`${includesDir}/`);
  const markdownPaths = Object.keys(input.markdown)
    .filter((path) => inBase(path) && !isInclude(path))
    .sort();
  if (markdownPaths.length === 0) {
    throw new LayoutError(
      'NOT_GITBOOK_LAYOUT',
      `Not a GitBook layout: no markdown file under ${base === '' ? 'the repository root' : `${base}/`}`,
    );
  }
  const warnings: string[] = [];
  const summaryPath = join(base, config.summary);
  const readmePath = join(base, config.readme);
  const has = (path: string) => Object.hasOwn(input.markdown, path);
  // Case-insensitive lookup of page files, as links written on case-insensitive systems need.
  const lowerIndex = new Map<string, string>();
  for (const path of Object.keys(input.markdown)) if (!lowerIndex.has(path.toLowerCase())) lowerIndex.set(path.toLowerCase(), path);
  const findPage = (path: string): string | null => {
    // `../` up to the repository root names its README.
    for (const candidate of path === '' ? ['README.md'] : [path, `${path}/README.md`, `${path}.md`]) {
      if (has(candidate)) return candidate;
      const lower = lowerIndex.get(candidate.toLowerCase());
      if (lower !== undefined) return lower;
    }
    return null;
  };

  // A page or include past the limits of every page (../content/limits.ts) is kept as text, with a
  // warning, and never parsed (its front matter and links included); the rest of the import goes on.
  const keptAsText = new Set<string>();
  const readText = (file: string): string | null => {
    const text = input.markdown[file];
    const problem = markdownLimitProblem(text);
    if (problem === null) return null;
    keptAsText.add(file);
    warnings.push(`${file} is kept as text: ${problem.message}`);
    return markdownAsText(text, `This page is kept as text: ${problem.message}`);
  };

  const used = new Set<string>();
  let drafts: Draft[];
  if (has(summaryPath)) {
    const fromEntries = (entries: SummaryEntry[]): Draft[] =>
      entries.map((entry): Draft => {
        const children = fromEntries(entry.children);
        const title = entry.title;
        const common = { title, children, ...(entry.linkTitle !== undefined ? { linkTitle: entry.linkTitle } : {}) };
        if (entry.href === null || entry.href.trim() === '') return { kind: 'empty', ...common };
        if (isExternal(entry.href)) return { kind: 'link', href: entry.href, ...common };
        const { path, suffix } = splitSuffix(entry.href);
        let file: string | null = null;
        for (const variant of [path, percentDecode(path)]) {
          const resolved = resolveRelativePath(summaryPath, variant);
          if (resolved !== null && (file = findPage(resolved)) !== null) break;
        }
        if (file !== null && isInclude(file)) file = null;
        if (file === null) {
          warnings.push(`SUMMARY.md lists ${entry.href}, which does not exist`);
          return { kind: 'empty', ...common };
        }
        if (used.has(file)) return { kind: 'pageLink', file, suffix, ...common };
        used.add(file);
        return { kind: 'file', file, ...common };
      });
    const parts = parseSummary(input.markdown[summaryPath], summaryPath);
    drafts = [];
    for (const part of parts) {
      const entries = fromEntries(part.entries);
      if (part.title === null) drafts.push(...entries);
      else drafts.push({ kind: 'group', title: part.title, ...(part.slug !== undefined ? { slug: part.slug } : {}), children: entries });
    }
    if (has(readmePath) && !used.has(readmePath)) drafts.unshift({ kind: 'file', title: '', file: readmePath, children: [] });
  } else {
    drafts = foldersTree(
      markdownPaths.filter((p) => p !== summaryPath),
      base,
      readmePath,
    );
  }

  // Pass 1: ids, slugs and positions, so that links can name any page.
  const pages: PageMap = {};
  const pageFiles: Record<string, string> = {};
  const pageByFile = new Map<string, string>();
  const covers = new Map<string, { file: string; cover: FrontMatterCover }>();
  const pageLinks = new Map<string, { file: string; suffix: string }>();
  const place = (list: Draft[], parentId: string | null, parentPath: string) => {
    const slugs = new Set<string>();
    let previous: string | null = null;
    for (const draft of list) {
      let content: ReturnType<typeof readPageFile> | null = null;
      if (draft.kind === 'file') {
        const asText = readText(draft.file);
        content = asText === null ? readPageFile(input.markdown[draft.file]) : { ...readPageFile(''), body: asText };
      }
      const title = (content?.title ?? '') || draft.title || (draft.kind === 'file' ? nameTitle(draft.file) : 'Untitled');
      let slug =
        draft.kind === 'file'
          ? draft.file === readmePath && parentId === null
            ? slugify(title)
            : slugOf(isReadme(draft.file) ? baseName(dirOf(draft.file)) || title : baseName(draft.file))
          : draft.kind === 'group' && draft.slug !== undefined
            ? slugOf(draft.slug)
            : slugify(title);
      for (let n = 2; slugs.has(slug); n++) slug = `${slug.replace(/-\d+$/, '')}-${n}`;
      slugs.add(slug);
      const slugPath = parentPath === '' ? slug : `${parentPath}/${slug}`;
      const id = pageIdFor(slugPath);
      const position = positionBetween(previous, null);
      previous = position;
      const node: PageNode = {
        id,
        parentId,
        position,
        type: draft.kind === 'group' ? 'group' : draft.kind === 'link' || draft.kind === 'pageLink' ? 'link' : 'document',
        title,
        slug,
        markdown: content?.body ?? '',
      };
      if (draft.kind === 'link') node.href = draft.href;
      if (draft.kind === 'pageLink') pageLinks.set(id, { file: draft.file, suffix: draft.suffix });
      const git: GitPageFields = {};
      if (draft.kind !== 'group' && ((draft.title !== '' && draft.title !== title) || draft.linkTitle !== undefined)) {
        git.summary = { title };
        if (draft.title !== '' && draft.title !== title) git.summary.text = draft.title;
        if (draft.linkTitle !== undefined) git.summary.linkTitle = draft.linkTitle;
      }
      if (content) {
        const f = content.fields;
        if (f.description) node.description = f.description;
        if (f.icon) node.icon = f.icon;
        if (f.emoji) node.emoji = f.emoji;
        if (f.hidden) node.hidden = true;
        if (f.noIndex) node.noIndex = true;
        if (f.noRobotsIndex) node.noRobotsIndex = true;
        if (f.layout) node.layout = f.layout;
        if (f.cover && draft.kind === 'file') covers.set(id, { file: draft.file, cover: f.cover });
        if (f.extra) git.frontMatter = f.extra;
      }
      if (Object.keys(git).length > 0) Object.assign(node, { git });
      pages[id] = node;
      if (draft.kind === 'file') {
        pageFiles[id] = draft.file;
        pageByFile.set(draft.file, id);
      }
      place(draft.children, id, slugPath);
    }
  };
  place(drafts, null, '');

  // Pass 2: link targets. Assets are every file under .gitbook/assets plus any file a page links to.
  const assetSet = new Set(input.assets);
  const assetLower = new Map<string, string>();
  for (const path of input.assets) if (!assetLower.has(path.toLowerCase())) assetLower.set(path.toLowerCase(), path);
  const assetsDir = join(base, ASSETS_DIR);
  const fileIds = new Map<string, string>();
  const fileFor = (path: string): string => {
    let id = fileIds.get(path);
    if (id === undefined) {
      id = fileIdFor(path);
      fileIds.set(path, id);
    }
    return id;
  };
  for (const path of [...input.assets].sort()) if (path.startsWith(`${assetsDir}/`)) fileFor(path);
  const reusableContentIdFor = ids.reusableContentId ?? (() => newId());
  const reusableContents: LayoutReusableContent[] = [];
  const includeOf = new Map<LayoutReusableContent, string>();
  for (const file of Object.keys(input.markdown).filter(isInclude).sort()) {
    const asText = readText(file);
    const { title, body } = asText === null ? readIncludeFile(input.markdown[file]) : { title: null, body: asText };
    const path = base === '' ? file : file.slice(base.length + 1);
    const content = { id: reusableContentIdFor(path), title: title || nameTitle(file), path, markdown: body };
    reusableContents.push(content);
    includeOf.set(content, file);
  }
  const rewrite = (markdown: string, file: string) =>
    rewriteLinks(markdown, (url) => {
      if (isExternal(url)) return null;
      const { path, suffix } = splitSuffix(url);
      for (const variant of new Set([path, percentDecode(path)])) {
        const resolved = resolveRelativePath(file, variant);
        if (resolved === null) continue;
        const asset = assetSet.has(resolved) ? resolved : assetLower.get(resolved.toLowerCase());
        if (asset !== undefined) return `gitbook://file/${fileFor(asset)}`;
        const page = findPage(resolved);
        const target = page === null ? undefined : pageByFile.get(page);
        if (target !== undefined) return `gitbook://page/${target}${suffix}`;
      }
      return null;
    });
  for (const [id, file] of Object.entries(pageFiles)) {
    const node = pages[id];
    if (node.markdown !== '' && !keptAsText.has(file)) node.markdown = rewrite(node.markdown, file);
  }
  for (const [id, { file, cover }] of covers) {
    const ref = coverRef(cover.path, file);
    if (ref === null) {
      warnings.push(`${file} names a cover, ${cover.path}, which does not exist`);
      continue;
    }
    pages[id].cover = { ref, yPos: cover.yPos ?? 0, ...(cover.height !== undefined ? { height: cover.height } : {}) };
  }
  for (const [id, { file, suffix }] of pageLinks) pages[id].href = `gitbook://page/${pageByFile.get(file)}${suffix}`;
  /** A cover image named in front matter: a URL, or a file of the repository like an image link's. */
  function coverRef(path: string, file: string): { kind: 'file'; file: string } | { kind: 'url'; url: string } | null {
    if (/^https?:\/\//i.test(path)) return { kind: 'url', url: path };
    if (isExternal(path)) return null;
    for (const variant of new Set([path, percentDecode(path)])) {
      const resolved = resolveRelativePath(file, variant);
      if (resolved === null) continue;
      const asset = assetSet.has(resolved) ? resolved : assetLower.get(resolved.toLowerCase());
      if (asset !== undefined) return { kind: 'file', file: fileFor(asset) };
    }
    return null;
  }
  for (const [content, file] of includeOf)
    if (content.markdown !== '' && !keptAsText.has(file)) content.markdown = rewrite(content.markdown, file);
  const files = [...fileIds.entries()].map(([path, id]) => ({ id, path, name: baseName(path) }));
  return { pages, files, pageFiles, reusableContents, config, warnings };
}

function nameTitle(file: string): string {
  const name = isReadme(file) ? baseName(dirOf(file)) : baseName(file).replace(/\.(md|markdown)$/i, '');
  return name.replace(/[-_]+/g, ' ').trim() || 'Untitled';
}

/** The tree of a repository without SUMMARY.md: folders in name order, `README.md` as the folder's page. */
function foldersTree(paths: string[], base: string, readmePath: string): Draft[] {
  interface Folder {
    files: string[];
    folders: Map<string, Folder>;
    readme: string | null;
  }
  const root: Folder = { files: [], folders: new Map(), readme: null };
  for (const path of paths) {
    const rest = base === '' ? path : path.slice(base.length + 1);
    const parts = rest.split('/');
    if (parts.some((p) => p.startsWith('.'))) continue;
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) folder.folders.set(part, (next = { files: [], folders: new Map(), readme: null }));
      folder = next;
    }
    if (isReadme(path) && folder !== root) folder.readme = path;
    else if (path !== readmePath) folder.files.push(path);
  }
  const build = (folder: Folder): Draft[] => {
    const out: Draft[] = folder.files.map((file) => ({ kind: 'file' as const, title: '', file, children: [] }));
    for (const [name, sub] of [...folder.folders.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const children = build(sub);
      if (sub.readme !== null) out.push({ kind: 'file', title: '', file: sub.readme, children });
      else if (children.length > 0) out.push({ kind: 'empty', title: name, children });
    }
    return out;
  };
  const drafts = build(root);
  if (paths.includes(readmePath)) drafts.unshift({ kind: 'file', title: '', file: readmePath, children: [] });
  return drafts;
}

// ---------------------------------------------------------------------------------------------
// Writing

export interface RenderedLayout {
  /** Text files to write, by path from the repository root (kept files included, with the parent's text). */
  texts: Record<string, string>;
  /** Files to write from the blob store, by path from the repository root. */
  assets: { path: string; fileId: string }[];
  /** Page id → path of the file written for it. */
  pageFiles: Record<string, string>;
  /** Paths of `texts` that are the parent's files as they are: nothing to write. */
  kept: string[];
  /**
   * The parent's files that were the layout's (page files, the summary, reusable contents, the
   * files of the space): each one not written again is to be removed. Other files are left alone.
   */
  owned: string[];
}

/** Relative path from the file `from` to the file `to` (both from the repository root). */
export function relativePath(from: string, to: string): string {
  const a = dirOf(from).split('/').filter(Boolean);
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}

/**
 * A relative path written as GitBook writes link targets in a page: a folder's `README.md` as the
 * folder (`../guides/`), spaces and parentheses as they are (a markdown destination holding them
 * is wrapped in `<…>`), only `%`, `#` and `?` escaped.
 */
export function linkPath(relative: string): string {
  const path = isReadme(relative) ? relative.slice(0, -'README.md'.length) || './' : relative;
  return path.replace(/[%#?]/g, (c) => encodeURIComponent(c));
}

/**
 * Where a reusable content is written, from the project root: its own path when it is a markdown
 * file directly inside `.gitbook/includes/`, else a file there named after its title.
 */
export function includePath(content: { id: string; title: string; path: string | null }, taken: Set<string>): string {
  const own = content.path === null ? null : cleanPath(content.path);
  const safe = own !== null && own.startsWith(`${INCLUDES_DIR}/`) && /^[^/]+\.md$/i.test(own.slice(INCLUDES_DIR.length + 1));
  let path = safe ? own : `${INCLUDES_DIR}/${slugify(content.title) || content.id}.md`;
  for (let n = 2; taken.has(path.toLowerCase()); n++) path = `${INCLUDES_DIR}/${slugify(content.title) || content.id}-${n}.md`;
  taken.add(path.toLowerCase());
  return path;
}

/** A parent commit's files, as `readLayout` takes them: what an export is written on top of. */
export interface ParentLayoutFiles {
  /** Text of every markdown file, by path from the repository root. */
  markdown: Record<string, string>;
  /** Paths of every other file. */
  assets: string[];
  /** Text of the parent's `.gitbook.yaml` in the project directory, if there is one. */
  gitbookYaml?: string | null;
}

export interface RenderOptions {
  projectDirectory?: string;
  config?: GitbookConfig;
  reusableContents?: { id: string; title: string; path: string | null; markdown: string }[];
  /**
   * The files of the commit the result is written on top of. Each page whose file there still
   * reads back as the page is now (same fields, title, text once its links are read against the
   * new files, same place in the tree) keeps that file, bytes and path; the same holds for the
   * summary (kept while the tree it describes is the same), reusable contents and the files of
   * the space. Pages read there keep their path even when rewritten.
   */
  parent?: ParentLayoutFiles | null;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The parent's layout with the ids of the pages, files and reusable contents it has in common with the content. */
function readParent(
  pages: PageMap,
  files: { id: string; name: string }[],
  contents: { id: string; path: string | null }[],
  parent: ParentLayoutFiles,
  projectDirectory: string,
): ImportedLayout | null {
  const idByPath = new Map<string, string>();
  for (const [id, path] of allPaths(pages)) if (!idByPath.has(path)) idByPath.set(path, id);
  const byName = new Map<string, string[]>();
  for (const file of files) byName.set(file.name, [...(byName.get(file.name) ?? []), file.id]);
  const contentByPath = new Map<string, string>();
  for (const content of contents) if (content.path !== null) contentByPath.set(cleanPath(content.path), content.id);
  const used = new Set<string>();
  let n = 0;
  const claim = (id: string | undefined, kind: string) => {
    if (id !== undefined && !used.has(id)) {
      used.add(id);
      return id;
    }
    return `\0parent-${kind}-${n++}`;
  };
  try {
    return readLayout(
      { markdown: parent.markdown, assets: parent.assets, gitbookYaml: parent.gitbookYaml, projectDirectory },
      {
        pageId: (path) => claim(idByPath.get(path), 'page'),
        fileId: (path) =>
          claim(
            byName.get(baseName(path))?.find((id) => !used.has(id)),
            'file',
          ),
        reusableContentId: (path) => claim(contentByPath.get(path), 'content'),
      },
    );
  } catch (error) {
    if (error instanceof LayoutError) return null;
    throw error;
  }
}

/**
 * Renders pages, files and reusable contents into the layout under `projectDirectory` and the
 * `.gitbook.yaml` config (root, readme, summary names), as GitBook's Git Sync writes it. `files`
 * are the revision's files (`id`, `name`); reusable contents go to `.gitbook/includes/` with their
 * title in front matter. With `parent`, only what changed is written again (see RenderOptions).
 */
export function renderLayout(pages: PageMap, files: { id: string; name: string }[], options: RenderOptions = {}): RenderedLayout {
  const config = options.config ?? parseGitbookYaml(null);
  const project = cleanPath(options.projectDirectory ?? '');
  const base = join(project, config.root);
  const contents = options.reusableContents ?? [];
  const parent = options.parent ?? null;
  const previous = parent === null ? null : readParent(pages, files, contents, parent, project);
  const prevPageFiles: Record<string, string> = previous?.pageFiles ?? {};
  const prevFilePaths = new Map((previous?.files ?? []).map((f) => [f.id, f.path]));
  const tree = buildTree(pages);
  const summaryPath = join(base, config.summary);
  const texts: Record<string, string> = {};
  const kept: string[] = [];
  const keep = (path: string) => {
    texts[path] = parent!.markdown[path];
    kept.push(path);
  };

  // Where things go: first what keeps its place in the parent, then the rest, around it.
  const includeFiles = new Map<string, string>();
  const includeNames = new Set<string>();
  for (const content of contents) includeFiles.set(content.id, join(base, includePath(content, includeNames)));
  const taken = new Set<string>([summaryPath.toLowerCase(), ...[...includeFiles.values()].map((p) => p.toLowerCase())]);
  const pageFiles: Record<string, string> = {};
  for (const [id, path] of Object.entries(prevPageFiles)) {
    const node = getPage(pages, id);
    if (node?.type === 'document' && !taken.has(path.toLowerCase())) {
      pageFiles[id] = path;
      taken.add(path.toLowerCase());
    }
  }
  const firstDoc = tree.find((e) => e.node.type === 'document');
  const readme = join(base, config.readme);
  const assign = (entries: TreeEntry[], dir: string) => {
    for (const { node, children } of entries) {
      const path = dir === '' ? node.slug : `${dir}/${node.slug}`;
      if (node.type === 'document' && pageFiles[node.id] === undefined) {
        const at = (suffix: string) => join(base, children.length > 0 ? `${path}${suffix}/README.md` : `${path}${suffix}.md`);
        let file = node === firstDoc?.node && !taken.has(readme.toLowerCase()) ? readme : at('');
        for (let n = 2; taken.has(file.toLowerCase()); n++) file = at(`-${n}`);
        pageFiles[node.id] = file;
        taken.add(file.toLowerCase());
      }
      assign(children, path);
    }
  };
  assign(tree, '');

  const assetPaths = new Map<string, string>();
  const takenAssets = new Set<string>();
  for (const file of files) {
    const path = prevFilePaths.get(file.id);
    if (path !== undefined && !takenAssets.has(path.toLowerCase())) {
      assetPaths.set(file.id, path);
      takenAssets.add(path.toLowerCase());
    }
  }
  for (const file of files) {
    if (assetPaths.has(file.id)) continue;
    const dot = file.name.lastIndexOf('.');
    const stem = dot > 0 ? file.name.slice(0, dot) : file.name;
    const ext = dot > 0 ? file.name.slice(dot) : '';
    let path = join(base, ASSETS_DIR, file.name.replace(/[/\\]/g, '_') || file.id);
    for (let n = 1; takenAssets.has(path.toLowerCase()); n++) path = join(base, ASSETS_DIR, `${stem} (${n})${ext}`.replace(/[/\\]/g, '_'));
    takenAssets.add(path.toLowerCase());
    assetPaths.set(file.id, path);
  }
  const assets: RenderedLayout['assets'] = files.map((file) => ({ path: assetPaths.get(file.id)!, fileId: file.id }));

  /** True when every page and file the markdown links to is where it was in the parent. */
  const targetsStay = (markdown: string) => {
    for (const m of markdown.matchAll(/gitbook:\/\/(page|file)\/([^#?/\s)"'>\]]+)/gi)) {
      const id = percentDecode(m[2]);
      const page = m[1].toLowerCase() === 'page';
      if ((page ? pageFiles[id] : assetPaths.get(id)) !== (page ? prevPageFiles[id] : prevFilePaths.get(id))) return false;
    }
    return true;
  };
  const relativeLinks = (markdown: string, path: string) =>
    rewriteLinks(markdown, (url) => {
      const match = /^gitbook:\/\/(page|file)\/([^#?/]+)(.*)$/i.exec(url);
      if (!match) return null;
      const page = match[1].toLowerCase() === 'page';
      const target = page ? pageFiles[percentDecode(match[2])] : assetPaths.get(percentDecode(match[2]));
      if (target === undefined) return null;
      return linkPath(relativePath(path, target)) + (page ? match[3] : '');
    });

  const prevContents = new Map((previous?.reusableContents ?? []).map((c) => [c.id, c]));
  for (const content of contents) {
    const path = includeFiles.get(content.id)!;
    const prev = prevContents.get(content.id);
    if (
      prev !== undefined &&
      join(base, prev.path) === path &&
      prev.title === content.title &&
      prev.markdown === content.markdown &&
      targetsStay(content.markdown)
    ) {
      keep(path);
      continue;
    }
    const body = relativeLinks(content.markdown, path);
    texts[path] = `---\ntitle: ${JSON.stringify(content.title)}\n---\n${body === '' ? '' : `\n${body}`}`;
  }

  for (const [id, path] of Object.entries(pageFiles)) {
    const node = pages[id];
    const prev = previous === null ? undefined : getPage(previous.pages, id);
    if (prev !== undefined && prevPageFiles[id] === path && samePage(node, prev) && targetsStay(node.markdown) && coverStays(node)) {
      keep(path);
      continue;
    }
    const body = relativeLinks(node.markdown, path);
    const front = renderFrontMatter({
      description: node.description,
      icon: node.icon,
      emoji: node.emoji,
      hidden: node.hidden,
      noIndex: node.noIndex,
      noRobotsIndex: node.noRobotsIndex,
      layout: storedLayout(node.layout),
      cover: coverFrontMatter(node, path),
      extra: gitFieldsOf(node).frontMatter ?? null,
    });
    const startsWithH1 = H1.test(body.split('\n', 1)[0] ?? '');
    const heading = startsWithH1 ? '' : `# ${node.title.replace(/\n/g, ' ') || node.slug}\n${body === '' ? '' : '\n'}`;
    texts[path] = `${front}${front === '' ? '' : '\n'}${heading}${body}`;
  }

  function coverFrontMatter(node: PageNode, path: string): FrontMatterCover | null {
    const cover = presentCover(node.cover);
    if (cover?.ref === undefined) return null;
    const target = cover.ref.kind === 'file' ? assetPaths.get(cover.ref.file) : undefined;
    const image = cover.ref.kind === 'url' ? cover.ref.url : target === undefined ? null : relativePath(path, target);
    return image === null ? null : { path: image, yPos: cover.yPos, ...(cover.height !== undefined ? { height: cover.height } : {}) };
  }
  function coverStays(node: PageNode): boolean {
    const ref = presentCover(node.cover)?.ref;
    return ref?.kind !== 'file' || assetPaths.get(ref.file) === prevFilePaths.get(ref.file);
  }

  /** The summary's target for a link page: a page of the space as a relative path (with its anchor). */
  const linkHref = (href: string | null | undefined): string | null => {
    const match = /^gitbook:\/\/page\/([^#?/]+)(.*)$/i.exec(href ?? '');
    const target = match ? pageFiles[percentDecode(match[1])] : undefined;
    return match && target !== undefined ? encodePath(relativePath(summaryPath, target)) + match[2] : (href ?? null);
  };
  /** True when the parent's summary describes the tree as it is (same pages, titles, order and files). */
  const sameTree = (a: TreeEntry[], b: TreeEntry[]): boolean =>
    a.length === b.length &&
    a.every(({ node, children }, i) => {
      const prev = b[i].node;
      if (node.id !== prev.id || node.type !== prev.type || node.title !== prev.title || node.slug !== prev.slug) return false;
      if (node.type === 'link' && (node.href !== prev.href || !targetsStay(node.href ?? ''))) return false;
      if (
        node.type === 'document' &&
        (pageFiles[node.id] !== prevPageFiles[node.id] || !sameJson(gitFieldsOf(node).summary, gitFieldsOf(prev).summary))
      )
        return false;
      return sameTree(children, b[i].children);
    });
  if (
    previous !== null &&
    Object.hasOwn(parent!.markdown, summaryPath) &&
    Object.keys(previous.pages).length === Object.keys(pages).length &&
    sameTree(tree, buildTree(previous.pages))
  ) {
    keep(summaryPath);
  } else {
    const entryOf = (entry: TreeEntry): SummaryEntry => {
      const { node } = entry;
      const href =
        node.type === 'link' ? linkHref(node.href) : pageFiles[node.id] ? encodePath(relativePath(summaryPath, pageFiles[node.id])) : null;
      const summary = gitFieldsOf(node).summary;
      const own = summary !== undefined && summary.title === node.title ? summary : undefined;
      return {
        title: own?.text ?? (node.title || node.slug),
        href,
        ...(own?.linkTitle !== undefined ? { linkTitle: own.linkTitle } : {}),
        children: entry.children.map(entryOf),
      };
    };
    const parts: SummaryPart[] = [{ title: null, entries: [] }];
    for (const entry of tree) {
      const last = parts[parts.length - 1];
      if (entry.node.type === 'group')
        parts.push({ title: entry.node.title || entry.node.slug, slug: entry.node.slug, entries: entry.children.map(entryOf) });
      else if (last.title === null) last.entries.push(entryOf(entry));
      else parts.push({ title: null, entries: [entryOf(entry)] });
    }
    texts[summaryPath] = renderSummary(parts);
  }

  const owned =
    previous === null
      ? []
      : [
          ...Object.values(previous.pageFiles),
          ...(Object.hasOwn(parent!.markdown, summaryPath) ? [summaryPath] : []),
          ...previous.reusableContents.map((c) => join(base, c.path)),
          ...previous.files.map((f) => f.path),
        ];
  return { texts, assets, pageFiles, kept, owned };
}

/** True when a page read from the parent is the page as it is now (its fields, title and text). */
function samePage(node: PageNode, prev: PageNode): boolean {
  const extra = gitFieldsOf(node).frontMatter;
  return (
    node.type === prev.type &&
    node.title === prev.title &&
    node.markdown === prev.markdown &&
    (node.description ?? '') === (prev.description ?? '') &&
    (node.icon ?? '') === (prev.icon ?? '') &&
    (node.emoji ?? '') === (prev.emoji ?? '') &&
    !!node.hidden === !!prev.hidden &&
    !!node.noIndex === !!prev.noIndex &&
    !!node.noRobotsIndex === !!prev.noRobotsIndex &&
    sameJson(storedLayout(node.layout), storedLayout(prev.layout)) &&
    sameJson(presentCover(node.cover), presentCover(prev.cover)) &&
    (extra === undefined || sameJson(extra, gitFieldsOf(prev).frontMatter))
  );
}

/**
 * The `redirects` of `.gitbook.yaml` as pages: each old path (relative to the root) with the id of
 * the page whose file the redirect names (`new/page.md`, relative to the root, `.md` optional).
 * A redirect to a file that is no page of the layout is left out.
 */
export function layoutRedirects(
  layout: Pick<ImportedLayout, 'config' | 'pageFiles'>,
  projectDirectory = '',
): { path: string; pageId: string }[] {
  const base = join(cleanPath(projectDirectory), layout.config.root);
  const pageByFile = new Map<string, string>();
  for (const [id, file] of Object.entries(layout.pageFiles)) pageByFile.set(file.toLowerCase(), id);
  const out: { path: string; pageId: string }[] = [];
  for (const [from, to] of Object.entries(layout.config.redirects)) {
    const target = join(base, to);
    const pageId = [target, `${target}.md`, `${target}/README.md`]
      .map((f) => pageByFile.get(f.toLowerCase()))
      .find((id) => id !== undefined);
    if (from !== '' && pageId !== undefined) out.push({ path: from, pageId });
  }
  return out;
}

export { LayoutError, parseGitbookYaml, type GitbookConfig } from './summary.ts';
