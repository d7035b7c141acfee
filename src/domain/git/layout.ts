import { toString } from 'mdast-util-to-string';
import { newId } from '../ids.ts';
import { positionBetween } from '../positions.ts';
import { markdownAsText, markdownLimitProblem } from '../content/limits.ts';
import { parseMarkdown, percentDecode, resolveRelativePath } from '../content/markdown.ts';
import { buildTree, slugify, type PageMap, type PageNode, type TreeEntry } from '../content/tree.ts';
import { pageFieldsOf, renderFrontMatter, splitFrontMatter, type PageFrontMatter } from './frontmatter.ts';
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

type Draft =
  | { kind: 'file'; title: string; file: string; children: Draft[] }
  | { kind: 'empty'; title: string; children: Draft[] }
  | { kind: 'group'; title: string; children: Draft[] }
  | { kind: 'link'; title: string; href: string; children: Draft[] };

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
    for (const candidate of [path, `${path}/README.md`, `${path}.md`]) {
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
        if (entry.href === null || entry.href.trim() === '') return { kind: 'empty', title, children };
        if (isExternal(entry.href)) return { kind: 'link', title, href: entry.href, children };
        const { path } = splitSuffix(entry.href);
        let file: string | null = null;
        for (const variant of [path, percentDecode(path)]) {
          const resolved = resolveRelativePath(summaryPath, variant);
          if (resolved !== null && (file = findPage(resolved)) !== null) break;
        }
        if (file !== null && isInclude(file)) file = null;
        if (file === null || used.has(file)) {
          warnings.push(file === null ? `SUMMARY.md lists ${entry.href}, which does not exist` : `SUMMARY.md lists ${entry.href} twice`);
          return { kind: 'empty', title, children };
        }
        used.add(file);
        return { kind: 'file', title, file, children };
      });
    const parts = parseSummary(input.markdown[summaryPath]);
    drafts = [];
    for (const part of parts) {
      const entries = fromEntries(part.entries);
      if (part.title === null) drafts.push(...entries);
      else drafts.push({ kind: 'group', title: part.title, children: entries });
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
  const parsed = new Map<string, ReturnType<typeof readPageFile>>();
  const place = (list: Draft[], parentId: string | null, parentPath: string) => {
    const slugs = new Set<string>();
    let previous: string | null = null;
    for (const draft of list) {
      let content: ReturnType<typeof readPageFile> | null = null;
      if (draft.kind === 'file') {
        const asText = readText(draft.file);
        content = asText === null ? readPageFile(input.markdown[draft.file]) : { ...readPageFile(''), body: asText };
        parsed.set(draft.file, content);
      }
      const title = (content?.title ?? '') || draft.title || (draft.kind === 'file' ? nameTitle(draft.file) : 'Untitled');
      let slug =
        draft.kind === 'file'
          ? draft.file === readmePath && parentId === null
            ? slugify(title)
            : slugOf(isReadme(draft.file) ? baseName(dirOf(draft.file)) || title : baseName(draft.file))
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
        type: draft.kind === 'group' ? 'group' : draft.kind === 'link' ? 'link' : 'document',
        title,
        slug,
        markdown: content?.body ?? '',
      };
      if (draft.kind === 'link') node.href = draft.href;
      if (content) {
        const f = content.fields;
        if (f.description) node.description = f.description;
        if (f.icon) node.icon = f.icon;
        if (f.emoji) node.emoji = f.emoji;
        if (f.hidden) node.hidden = true;
        if (f.noIndex) node.noIndex = true;
        if (f.noRobotsIndex) node.noRobotsIndex = true;
        if (f.layout) node.layout = f.layout;
        if (f.cover) node.cover = f.cover;
      }
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
  /** Text files to write, by path from the repository root. */
  texts: Record<string, string>;
  /** Files to write from the blob store, by path from the repository root. */
  assets: { path: string; fileId: string }[];
  /** Page id → path of the file written for it. */
  pageFiles: Record<string, string>;
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

/**
 * Renders pages, files and reusable contents into the layout under `projectDirectory` and the
 * `.gitbook.yaml` config (root, readme, summary names). `files` are the revision's files (`id`,
 * `name`); reusable contents go to `.gitbook/includes/` with their title in front matter.
 */
export function renderLayout(
  pages: PageMap,
  files: { id: string; name: string }[],
  options: {
    projectDirectory?: string;
    config?: GitbookConfig;
    reusableContents?: { id: string; title: string; path: string | null; markdown: string }[];
  } = {},
): RenderedLayout {
  const config = options.config ?? parseGitbookYaml(null);
  const base = join(cleanPath(options.projectDirectory ?? ''), config.root);
  const tree = buildTree(pages);
  const pageFiles: Record<string, string> = {};
  const firstDoc = tree.find((e) => e.node.type === 'document');
  const assign = (entries: TreeEntry[], dir: string) => {
    for (const { node, children } of entries) {
      const path = dir === '' ? node.slug : `${dir}/${node.slug}`;
      if (node.type === 'document') {
        if (node === firstDoc?.node) pageFiles[node.id] = join(base, config.readme);
        else pageFiles[node.id] = join(base, children.length > 0 ? `${path}/README.md` : `${path}.md`);
      }
      assign(children, path);
    }
  };
  assign(tree, '');

  const assetPaths = new Map<string, string>();
  const taken = new Set<string>();
  const assets: RenderedLayout['assets'] = [];
  for (const file of files) {
    const dot = file.name.lastIndexOf('.');
    const stem = dot > 0 ? file.name.slice(0, dot) : file.name;
    const ext = dot > 0 ? file.name.slice(dot) : '';
    let name = file.name.replace(/[/\\]/g, '_') || file.id;
    for (let n = 1; taken.has(name.toLowerCase()); n++) name = `${stem} (${n})${ext}`;
    taken.add(name.toLowerCase());
    const path = join(base, ASSETS_DIR, name);
    assetPaths.set(file.id, path);
    assets.push({ path, fileId: file.id });
  }

  const texts: Record<string, string> = {};
  const relativeLinks = (markdown: string, path: string) =>
    rewriteLinks(markdown, (url) => {
      const match = /^gitbook:\/\/(page|file)\/([^#?/]+)(.*)$/i.exec(url);
      if (!match) return null;
      const target = match[1].toLowerCase() === 'page' ? pageFiles[percentDecode(match[2])] : assetPaths.get(percentDecode(match[2]));
      if (target === undefined) return null;
      return encodePath(relativePath(path, target)) + (match[1].toLowerCase() === 'page' ? match[3] : '');
    });
  const includes = new Set<string>();
  for (const content of options.reusableContents ?? []) {
    const path = join(base, includePath(content, includes));
    const body = relativeLinks(content.markdown, path);
    texts[path] = `---\ntitle: ${JSON.stringify(content.title)}\n---\n${body === '' ? '' : `\n${body}`}`;
  }
  for (const [id, path] of Object.entries(pageFiles)) {
    const node = pages[id];
    const body = relativeLinks(node.markdown, path);
    const front = renderFrontMatter({
      description: node.description,
      icon: node.icon,
      emoji: node.emoji,
      hidden: node.hidden,
      noIndex: node.noIndex,
      noRobotsIndex: node.noRobotsIndex,
      layout: node.layout,
      cover: node.cover,
    });
    const startsWithH1 = H1.test(body.split('\n', 1)[0] ?? '');
    const heading = startsWithH1 ? '' : `# ${node.title.replace(/\n/g, ' ') || node.slug}\n${body === '' ? '' : '\n'}`;
    texts[path] = `${front}${front === '' ? '' : '\n'}${heading}${body}`;
  }

  const summaryPath = join(base, config.summary);
  const entryOf = (entry: TreeEntry): SummaryEntry => {
    const { node } = entry;
    const href =
      node.type === 'link' ? (node.href ?? null) : pageFiles[node.id] ? encodePath(relativePath(summaryPath, pageFiles[node.id])) : null;
    return { title: node.title || node.slug, href, children: entry.children.map(entryOf) };
  };
  const parts: SummaryPart[] = [{ title: null, entries: [] }];
  for (const entry of tree) {
    if (entry.node.type === 'group') parts.push({ title: entry.node.title || entry.node.slug, entries: entry.children.map(entryOf) });
    else parts[0].entries.push(entryOf(entry));
  }
  texts[summaryPath] = renderSummary(parts);
  return { texts, assets, pageFiles };
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
