import { pageDepthProblem, type PageMap } from '../domain/content/tree.ts';
import { layoutRedirects, readLayout, type ImportedFile, type LayoutReusableContent } from '../domain/git/layout.ts';
import { isStackOverflow, LayoutError } from '../domain/git/summary.ts';
import { newId } from '../domain/ids.ts';

/**
 * The layout of a commit an import reads (pages, files, reusable contents, redirects), as a task
 * of the parsing pool's threads (lib/bounded-parse.ts): the markdown is the repository's, so it is
 * parsed off the worker's event loop, which meanwhile stores the commit's files. Arguments and
 * result are plain data: the ids to keep come as tables, not callbacks.
 */

export interface CommitLayoutInput {
  /** Text of every markdown file, by path. */
  markdown: Record<string, string>;
  /** Paths of every other file. */
  assets: string[];
  gitbookYaml: string | null;
  projectDirectory: string;
  /** Slug path → page id to keep, earlier entries winning (the space's pages, then those last synced). */
  pageIds: [string, string][];
  /** File name → file id to keep. */
  fileIds: [string, string][];
  /** Path of a reusable content → its id. */
  reusableContentIds: [string, string][];
}

export interface CommitLayout {
  pages: PageMap;
  files: ImportedFile[];
  reusableContents: LayoutReusableContent[];
  warnings: string[];
  redirects: { path: string; pageId: string }[];
  /** Why the pages nest too deeply to import, when they do. */
  tooDeep: string | null;
}

/**
 * Reads the layout; pages and files keep the ids given where their paths and names match, each id
 * used once. Throws LayoutError; markdown nested so deeply that reading it overflows the thread's
 * stack (nesting the markdown limits do not bound) is one too (`MARKDOWN_LIMIT`), so that the import
 * fails for good with that reason instead of being retried as a thread that failed.
 */
export function readCommitLayout(input: CommitLayoutInput): CommitLayout {
  try {
    return readCommitLayoutUnguarded(input);
  } catch (error) {
    if (isStackOverflow(error))
      throw new LayoutError('MARKDOWN_LIMIT', "The repository's markdown nests too deeply to be read (limit MAX_NESTING)");
    throw error;
  }
}

function readCommitLayoutUnguarded(input: CommitLayoutInput): CommitLayout {
  const pathIds = new Map<string, string>();
  for (const [path, id] of input.pageIds) if (!pathIds.has(path)) pathIds.set(path, id);
  const fileByName = new Map<string, string>();
  for (const [name, id] of input.fileIds) if (!fileByName.has(name)) fileByName.set(name, id);
  const includeIds = new Map(input.reusableContentIds);
  const usedPages = new Set<string>();
  const usedFiles = new Set<string>();
  const layout = readLayout(
    { markdown: input.markdown, assets: input.assets, gitbookYaml: input.gitbookYaml, projectDirectory: input.projectDirectory },
    {
      pageId: (path) => {
        const known = pathIds.get(path);
        const id = known && !usedPages.has(known) ? known : newId();
        usedPages.add(id);
        return id;
      },
      fileId: (path) => {
        const known = fileByName.get(path.slice(path.lastIndexOf('/') + 1));
        const id = known && !usedFiles.has(known) ? known : newId();
        usedFiles.add(id);
        return id;
      },
      reusableContentId: (path) => includeIds.get(path) ?? newId(),
    },
  );
  return {
    pages: layout.pages,
    files: layout.files,
    reusableContents: layout.reusableContents,
    warnings: layout.warnings,
    redirects: layoutRedirects(layout, input.projectDirectory),
    tooDeep: pageDepthProblem(layout.pages) ?? null,
  };
}
