import {
  loadFiles,
  loadPageMap,
  loadReusableContents,
  type FileRow,
  type ReusableContent,
  type ReusableContentRow,
} from '../db/content.ts';
import { loadGitSync, spaceRevisionOf, type GitSyncRequestRow } from '../db/git-sync.ts';
import { raiseSpaceEvent } from '../db/integration-events.ts';
import { forkEm, transaction, type Orm } from '../db/orm.ts';
import { contentTypeOf } from '../domain/files.ts';
import { allPaths, type PageMap } from '../domain/content/tree.ts';
import { GitSyncError } from '../domain/git/errors.ts';
import { importRoute, needsContent } from '../domain/git/import-decision.ts';
import { assetsFolder } from '../domain/git/layout.ts';
import { cleanPath, LayoutError } from '../domain/git/summary.ts';
import { BoundedParseError, boundedTask, runBounded } from '../lib/bounded-parse.ts';
import { readBlobs, type GitRemote } from '../lib/git-cli.ts';
import { beat, cancellationSignal, throwIfCancelled } from '../lib/heartbeat.ts';
import type { CommitLayout, CommitLayoutInput, readCommitLayout } from './git-sync-layout.ts';
import type { GitSyncActivityOptions } from './git-sync-options.ts';
import { recordFailure, type GitSyncOutcome, type StagedImport } from './git-sync-outcome.ts';
import { storeGitBlobs } from './git-sync-assets.ts';
import { commitMessage, ensureCache, fetchRef, listTree, withCache } from './git-sync-repository.ts';
import { announceIntegrationEventsFromActivity } from '../temporal/integration-events.ts';

/**
 * The stage of an import: everything slow and nothing written to the space. It fetches the ref
 * into the repository cache, reads the commit's GitBook layout (in a thread of the parsing pool,
 * git-sync-layout.ts) while its files stream to the blob store on the event loop, and writes all
 * of it as one JSON bundle to the blob store; `applyImport` (git-sync-apply.ts)
 * writes from the bundle in one transaction. Safe to run again: blobs are content-addressed and a
 * fetch of a cached commit is quick.
 */

/** What staging an import produced, stored as one JSON blob: the workflow history carries its hash only. */
export interface GitImportBundle {
  requestId: string;
  commit: string;
  message: string;
  /**
   * The commit's pages (links between them as content references) and stored files, and what the
   * layout reader warned of; null when the commit needs no reading (it is the one last synced).
   */
  content: {
    pages: PageMap;
    files: FileRow[];
    /** The commit's `.gitbook/includes/` (absent in bundles staged before reusable contents were read). */
    reusableContents?: ReusableContent[];
    warnings: string[];
    /** The `redirects` of `.gitbook.yaml` as pages (absent from bundles staged before they were read). */
    redirects?: { path: string; pageId: string }[];
  } | null;
}

const isMarkdown = (path: string) => /\.(md|markdown)$/i.test(path);

/**
 * Refuses a commit whose markdown is more than one import reads (GIT_MAX_MARKDOWN_*), before any of
 * it is read: more files than `maxFiles`, one file over `maxFileBytes` (or over the limit of any
 * file), or more than `maxTotalBytes` in all. Sizes are git's own (the tree listing's). An export
 * reads the branch it writes on top of within the same limits.
 */
export function markdownWithinLimits(o: GitSyncActivityOptions, entries: { path: string; size: number }[]): void {
  const { maxFiles, maxFileBytes, maxTotalBytes } = o.markdown;
  if (entries.length > maxFiles) {
    throw new GitSyncError(
      'TOO_MANY_FILES',
      `The commit has ${entries.length} markdown files, more than the limit of ${maxFiles} one import reads`,
    );
  }
  const maxOne = Math.min(maxFileBytes, o.maxFileBytes);
  let total = 0;
  for (const entry of entries) {
    if (entry.size > maxOne) {
      throw new GitSyncError(
        'FILE_TOO_LARGE',
        `${entry.path} is ${entry.size} bytes, more than the limit of ${maxOne} for a markdown file`,
      );
    }
    total += entry.size;
  }
  if (total > maxTotalBytes) {
    throw new GitSyncError(
      'MARKDOWN_TOO_LARGE',
      `The commit's markdown files hold ${total} bytes, more than the limit of ${maxTotalBytes} one import reads`,
    );
  }
}

/** Markdown read per `git cat-file` batch: at most this many files, or about this many bytes. */
const READ_BATCH_FILES = 500;
const READ_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * The text of each markdown file by path, read in batches (READ_BATCH_*): each batch's bytes are
 * decoded and let go before the next is read, so no more than one batch of raw blobs is held
 * beside the texts.
 */
export async function readMarkdown(
  gitDir: string,
  entries: { path: string; oid: string; size: number }[],
): Promise<Record<string, string>> {
  const markdown: Record<string, string> = {};
  for (let start = 0; start < entries.length;) {
    let end = start;
    let bytes = 0;
    while (end < entries.length && end - start < READ_BATCH_FILES && (end === start || bytes + entries[end].size <= READ_BATCH_BYTES)) {
      bytes += entries[end].size;
      end++;
    }
    const batch = entries.slice(start, end);
    const blobs = await readBlobs(
      gitDir,
      batch.map((e) => e.oid),
    );
    for (const entry of batch) markdown[entry.path] = blobs.get(entry.oid)?.toString('utf8') ?? '';
    start = end;
    beat({ phase: 'reading', read: start, of: entries.length });
  }
  return markdown;
}

/** Slug path → page id of the revisions given, earlier ones winning (the first entry of a path wins). */
function idsByPath(...maps: PageMap[]): [string, string][] {
  const out: [string, string][] = [];
  for (const map of maps) for (const [id, path] of allPaths(map)) out.push([path, id]);
  return out;
}

const LAYOUT = boundedTask<typeof readCommitLayout>(new URL('./git-sync-layout.ts', import.meta.url), 'readCommitLayout');
const LAYOUT_ERROR_CODES = new Set<string>(['NOT_GITBOOK_LAYOUT', 'INVALID_GITBOOK_YAML', 'FILE_TOO_LARGE', 'MARKDOWN_LIMIT']);

/**
 * The commit's layout, read in a thread of the parsing pool (git-sync-layout.ts): the markdown's
 * parsing never holds the event loop that stores the files meanwhile. What the repository does
 * wrong reads as it does on the event loop (LayoutError); a thread that runs out of memory or time
 * over it, as markdown too large to import; a pool busy or broken is thrown for a retry.
 */
async function layoutOf(input: CommitLayoutInput): Promise<CommitLayout> {
  try {
    return await runBounded(LAYOUT, [input], { signal: cancellationSignal() });
  } catch (error) {
    throwIfCancelled();
    if (!(error instanceof BoundedParseError)) throw error;
    if (error.reason === 'rejected' && LAYOUT_ERROR_CODES.has(error.code))
      throw new LayoutError(error.code as LayoutError['code'], error.message);
    if (error.reason === 'out-of-memory' || error.reason === 'timeout')
      throw new GitSyncError(
        'MARKDOWN_TOO_LARGE',
        `Reading the commit's pages ${error.reason === 'timeout' ? 'took too long' : 'needed too much memory'}`,
      );
    throw error;
  }
}

/**
 * Reads the commit's layout and stores its files; pages and files keep the ids they have in the
 * space (or in the revision last synced) where their paths and names match.
 */
async function readCommit(
  o: GitSyncActivityOptions,
  gitDir: string,
  commit: string,
  request: GitSyncRequestRow,
  current: { pages: PageMap; files: FileRow[]; reusableContents: ReusableContentRow[] },
  ancestor: PageMap | null,
): Promise<NonNullable<GitImportBundle['content']>> {
  const project = cleanPath(request.params.repoProjectDirectory ?? '');
  const entries = (await listTree(gitDir, commit)).filter(
    (e) => e.type === 'blob' && e.mode !== '120000' && (project === '' || e.path.startsWith(`${project}/`)),
  );
  const yamlEntry = entries.find((e) => e.path === (project === '' ? '.gitbook.yaml' : `${project}/.gitbook.yaml`));
  const markdownEntries = entries.filter((e) => isMarkdown(e.path));
  beat({ phase: 'reading', files: entries.length });
  markdownWithinLimits(o, markdownEntries);
  if (yamlEntry && yamlEntry.size > o.markdown.maxFileBytes) {
    throw new GitSyncError(
      'FILE_TOO_LARGE',
      `${yamlEntry.path} is ${yamlEntry.size} bytes, more than the limit of ${o.markdown.maxFileBytes}`,
    );
  }
  const isImage = (path: string) => contentTypeOf(path.slice(path.lastIndexOf('/') + 1)).startsWith('image/');
  const toStore = (list: { oid: string; path: string }[]) => list.map((e) => ({ oid: e.oid, image: isImage(e.path) }));
  // Every file of the assets folder (which `.gitbook.yaml` alone tells) is a file of the space:
  // they are stored while the pages are read and laid out (a file over the limit is left for the
  // check below, which names it). Reading the pages fails: the storing stops and is waited for.
  const gitbookYaml = yamlEntry ? (await readBlobs(gitDir, [yamlEntry.oid])).get(yamlEntry.oid)?.toString('utf8') : null;
  const folder = assetsFolder(gitbookYaml, project);
  const early =
    folder === null ? [] : entries.filter((e) => e.path.startsWith(`${folder}/`) && !isMarkdown(e.path) && e.size <= o.maxFileBytes);
  let storedCount = 0;
  const onStored = () => beat({ phase: 'assets', stored: ++storedCount });
  const abort = new AbortController();
  const storing = storeGitBlobs(gitDir, o.blobs, toStore(early), { signal: abort.signal, onStored });
  storing.catch(() => undefined); // awaited below, or abandoned (and awaited) when reading the pages fails
  try {
    const layout = await layoutOf({
      markdown: await readMarkdown(gitDir, markdownEntries),
      assets: entries.filter((e) => !isMarkdown(e.path)).map((e) => e.path),
      gitbookYaml: gitbookYaml ?? null,
      projectDirectory: project,
      pageIds: idsByPath(current.pages, ancestor ?? {}),
      fileIds: current.files.map((file) => [file.name, file.id]),
      reusableContentIds: current.reusableContents.flatMap((content) => (content.path !== null ? [[content.path, content.id]] : [])),
    });
    const { tooDeep } = layout;
    if (tooDeep) throw new GitSyncError('NOT_GITBOOK_LAYOUT', `The repository nests its pages too deeply: ${tooDeep}`);
    const byPath = new Map(entries.map((e) => [e.path, e]));
    for (const file of layout.files) {
      const entry = byPath.get(file.path)!;
      if (entry.size > o.maxFileBytes)
        throw new GitSyncError('FILE_TOO_LARGE', `${file.path} is ${entry.size} bytes, more than the limit of ${o.maxFileBytes}`);
    }
    // Files the pages link to outside the assets folder are stored now.
    const earlyOids = new Set(early.map((e) => e.oid));
    const late = layout.files.map((f) => byPath.get(f.path)!).filter((e) => !earlyOids.has(e.oid));
    const stored = await storing;
    for (const [oid, blob] of await storeGitBlobs(gitDir, o.blobs, toStore(late), { onStored })) stored.set(oid, blob);
    const files: FileRow[] = layout.files.map((file) => {
      const blob = stored.get(byPath.get(file.path)!.oid)!;
      const contentType = contentTypeOf(file.name);
      const image = contentType.startsWith('image/');
      return {
        id: file.id,
        name: file.name,
        contentType,
        size: blob.size,
        width: image ? blob.width : null,
        height: image ? blob.height : null,
        sha256: blob.sha256,
      };
    });
    return {
      pages: layout.pages,
      files,
      reusableContents: layout.reusableContents,
      warnings: layout.warnings,
      redirects: layout.redirects,
    };
  } catch (error) {
    abort.abort(error);
    await storing.catch(() => undefined);
    throw error;
  }
}

/**
 * Tells the integrations that follow the space's Git Sync that an import of `commit` starts (GitBook's
 * `space_gitsync_started`): its revision is the space's, the one the import starts from, as the new
 * one does not exist before the import is applied. An attempt tried again tells them again (events are
 * delivered at least once); a lost start is made by the integration events' sweep.
 */
async function announceGitSyncStarted(orm: Orm, spaceId: string, revisionId: string, commit: string): Promise<void> {
  const raised = await transaction(forkEm(orm), (tx) =>
    raiseSpaceEvent(tx, spaceId, 'space_gitsync_started', { revisionId, commitId: commit }),
  );
  if (raised.length > 0) await announceIntegrationEventsFromActivity(raised).catch(() => undefined);
}

/**
 * Stages an import: the stored bundle, or the outcome when the request finished here (the space
 * is gone). Readable failures of the repository (bad ref, refused credentials, not a GitBook
 * layout, a file too large) are thrown as GitSyncError or LayoutError for the caller to record.
 */
export async function stageImport(
  orm: Orm,
  o: GitSyncActivityOptions,
  request: GitSyncRequestRow,
  remote: GitRemote,
): Promise<StagedImport | GitSyncOutcome> {
  const gitDir = await ensureCache(o.cacheDir, orm, request);
  return withCache(gitDir, async () => {
    beat({ phase: 'fetching' });
    const commit = (await fetchRef(gitDir, remote, request.params.ref, o.timeoutMs))!;
    const message = await commitMessage(gitDir, commit);
    const em = forkEm(orm);
    const sync = await loadGitSync(em, request.space_id);
    const space = await spaceRevisionOf(em, request.space_id);
    if (!space || space.deleted_at) return recordFailure(orm, request, 'SPACE_GONE', 'The space no longer exists');
    const route = importRoute({
      requestedAt: new Date(request.requested_at),
      force: request.params.force === true,
      standalone: request.params.standalone === true,
      commit,
      lastAppliedAt: sync?.last_applied_at ?? null,
      lastCommit: sync?.last_commit ?? null,
      lastRevision: sync?.last_revision ?? null,
      spaceRevision: space.revision_id,
    });
    let content: GitImportBundle['content'] = null;
    if (needsContent(route)) {
      await announceGitSyncStarted(orm, request.space_id, space.revision_id, commit);
      // The ids of the space's pages and files (and of those last synced) are kept where paths match.
      const current = {
        pages: await loadPageMap(em, space.revision_id, false),
        files: await loadFiles(em, space.revision_id),
        reusableContents: await loadReusableContents(em, space.revision_id),
      };
      const ancestor = sync?.last_revision ? await loadPageMap(em, sync.last_revision, false) : null;
      content = await readCommit(o, gitDir, commit, request, current, ancestor);
    }
    const bundle: GitImportBundle = { requestId: request.id, commit, message, content };
    const sha = await o.blobs.put(Buffer.from(JSON.stringify(bundle), 'utf8'));
    beat({ phase: 'staged', pages: content ? Object.keys(content.pages).length : 0, files: content?.files.length ?? 0 });
    return { state: 'staged', bundle: sha, commit };
  });
}
