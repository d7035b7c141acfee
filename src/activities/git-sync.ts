import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadFiles, loadPageMap, writeRevision, type FileRow } from '../db/content.ts';
import {
  finishGitSyncRequest,
  insertChangeRequest,
  loadGitSync,
  loadGitSyncRequest,
  lockGitSync,
  lockQueuedRequest,
  lockSpace,
  noteExportCommit,
  setRevisionGit,
  requestSecretContext,
  setSpaceRevision,
  spaceOrganization,
  updateGitSync,
  type GitSyncRequestRow,
  type GitSyncRow,
} from '../db/git-sync.ts';
import type { Orm } from '../db/orm.ts';
import { gitCacheName } from '../domain/git/cache.ts';
import { contentTypeOf, measureImage } from '../domain/files.ts';
import { syncSearchIndex } from '../db/search.ts';
import { mergePageMaps } from '../domain/content/merge.ts';
import { allPaths, deepEqual, pageDepthProblem, type PageMap } from '../domain/content/tree.ts';
import { GitSyncError } from '../domain/git/errors.ts';
import { readLayout, renderLayout } from '../domain/git/layout.ts';
import { cleanPath, LayoutError, parseGitbookYaml } from '../domain/git/summary.ts';
import { newId } from '../domain/ids.ts';
import type { BlobStore } from '../lib/blob-store.ts';
import { blobStream, git, gitRemote, prepareRemote, readBlobs, type GitRemote } from '../lib/git-cli.ts';
import type { FetchPolicy } from '../lib/guarded-fetch.ts';
import { beat, heartbeating } from '../lib/heartbeat.ts';
import type { SecretBox } from '../lib/secrets.ts';

/**
 * Git Sync activities: one request (import or export) applied as one idempotent step. The
 * request row is the unit of work: its result (revision, commit, failure) is written in the same
 * transaction as the content it produced, and a finished request is never run again, so a retry
 * or a reset from the Temporal UI never writes a second revision.
 */

export interface GitSyncOutcome {
  state: 'applied' | 'unchanged' | 'skipped' | 'failed' | 'conflict';
  revisionId?: string;
  commit?: string;
  code?: string;
  message?: string;
  changeRequestId?: string;
}

export interface GitSyncActivityOptions {
  blobs: BlobStore;
  cacheDir: string;
  maxFileBytes: number;
  timeoutMs: number;
  policy: FetchPolicy;
  secrets: () => Promise<SecretBox>;
}

const isMarkdown = (path: string) => /\.(md|markdown)$/i.test(path);
/** Files up to this size are read in memory (in batches of BATCH_BYTES); larger ones are streamed. */
const SMALL_FILE = 1024 * 1024;
const BATCH_BYTES = 32 * 1024 * 1024;

/** One mutex per cache directory: git commands on one repository never overlap in this process. */
const cacheLocks = new Map<string, Promise<unknown>>();
async function withCache<T>(dir: string, run: () => Promise<T>): Promise<T> {
  const previous = cacheLocks.get(dir) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(run);
  cacheLocks.set(dir, next);
  try {
    return await next;
  } finally {
    if (cacheLocks.get(dir) === next) cacheLocks.delete(dir);
  }
}

/** The bare repository that caches a request's fetches (domain/git/cache.ts names it), created when missing. */
async function ensureCache(options: GitSyncActivityOptions, orm: Orm, request: GitSyncRequestRow): Promise<string> {
  const organizationId = (await spaceOrganization(orm.em.fork(), request.space_id)) ?? `space:${request.space_id}`;
  const dir = join(
    options.cacheDir,
    gitCacheName({ spaceId: request.space_id, url: request.params.url, repoCacheID: request.params.repoCacheID, organizationId }),
  );
  const exists = await stat(join(dir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(dir, { recursive: true });
    await git(['init', '--bare', '--quiet', dir]);
  }
  return dir;
}

/** Fetches `ref` (shallow) into the cache; the commit id, or null when the ref does not exist and `missingOk`. */
async function fetchRef(gitDir: string, remote: GitRemote, ref: string, timeoutMs: number, missingOk = false): Promise<string | null> {
  const local = `refs/sync/${createHash('sha256').update(`${remote.url}\n${ref}`).digest('hex').slice(0, 16)}`;
  try {
    await gitRemote(remote, ref, ['fetch', '--quiet', '--depth=1', '--no-tags', '--no-write-fetch-head', remote.url, `+${ref}:${local}`], {
      gitDir,
      timeoutMs,
    });
  } catch (error) {
    if (missingOk && error instanceof GitSyncError && error.code === 'BAD_REF') return null;
    throw error;
  }
  return (await git(['rev-parse', '--verify', `${local}^{commit}`], { gitDir })).toString().trim();
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

async function listTree(gitDir: string, commit: string): Promise<TreeEntry[]> {
  const out = (await git(['ls-tree', '-r', '-z', '--long', commit], { gitDir })).toString('utf8');
  const entries: TreeEntry[] = [];
  for (const record of out.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, oid, size] = record.slice(0, tab).split(/\s+/);
    entries.push({ mode, type, oid, size: Number(size), path: record.slice(tab + 1) });
  }
  return entries;
}

const fail = (code: string, message: string): GitSyncOutcome => ({ state: 'failed', code, message });

function outcomeOf(request: GitSyncRequestRow): GitSyncOutcome {
  return {
    state: request.state === 'queued' ? 'failed' : request.state,
    ...(request.revision_id ? { revisionId: request.revision_id } : {}),
    ...(request.commit ? { commit: request.commit } : {}),
    ...(request.detail?.code ? { code: request.detail.code } : {}),
    ...(request.detail?.message ? { message: request.detail.message } : {}),
    ...(request.detail?.changeRequestId ? { changeRequestId: request.detail.changeRequestId } : {}),
  };
}

/** Slug path → page id of the revisions given, earlier ones winning. */
function idsByPath(...maps: PageMap[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const map of maps) for (const [id, path] of allPaths(map)) if (!out.has(path)) out.set(path, id);
  return out;
}

const sameFiles = (a: FileRow[], b: FileRow[]) =>
  a.length === b.length &&
  deepEqual(
    [...a].sort((x, y) => (x.id < y.id ? -1 : 1)).map(({ id, name, sha256 }) => ({ id, name, sha256 })),
    [...b].sort((x, y) => (x.id < y.id ? -1 : 1)).map(({ id, name, sha256 }) => ({ id, name, sha256 })),
  );

const later = (a: Date | null, b: Date) => (a && new Date(a) > b ? new Date(a) : b);

async function recordFailure(orm: Orm, request: GitSyncRequestRow, code: string, message: string): Promise<GitSyncOutcome> {
  await orm.em.fork().transactional(async (em) => {
    if (!(await lockQueuedRequest(em, request.id))) return;
    await lockGitSync(em, request.space_id);
    await updateGitSync(em, request.space_id, {
      status: 'failed',
      last_operation: request.kind,
      last_sync_error: { code, message, at: new Date().toISOString() },
    });
    await finishGitSyncRequest(em, request.id, 'failed', { detail: { code, message } });
  });
  return fail(code, message);
}

export function gitSyncActivities(orm: Orm, options: GitSyncActivityOptions | (() => GitSyncActivityOptions)) {
  let resolved: GitSyncActivityOptions | undefined;
  const opts = () => (resolved ??= typeof options === 'function' ? options() : options);

  /** Reads the commit's layout, stores its files and returns the imported pages and files. */
  async function readCommit(
    gitDir: string,
    commit: string,
    request: GitSyncRequestRow,
    current: { pages: PageMap; files: FileRow[] },
    ancestor: PageMap | null,
  ) {
    const o = opts();
    const project = cleanPath(request.params.repoProjectDirectory ?? '');
    const entries = (await listTree(gitDir, commit)).filter(
      (e) => e.type === 'blob' && e.mode !== '120000' && (project === '' || e.path.startsWith(`${project}/`)),
    );
    const yamlEntry = entries.find((e) => e.path === (project === '' ? '.gitbook.yaml' : `${project}/.gitbook.yaml`));
    const markdownEntries = entries.filter((e) => isMarkdown(e.path));
    beat({ phase: 'reading', files: entries.length });
    for (const entry of markdownEntries) {
      if (entry.size > o.maxFileBytes)
        throw new GitSyncError('FILE_TOO_LARGE', `${entry.path} is ${entry.size} bytes, more than the limit of ${o.maxFileBytes}`);
    }
    const blobs = await readBlobs(gitDir, [...markdownEntries.map((e) => e.oid), ...(yamlEntry ? [yamlEntry.oid] : [])]);
    const markdown: Record<string, string> = {};
    for (const entry of markdownEntries) markdown[entry.path] = blobs.get(entry.oid)?.toString('utf8') ?? '';
    const pathIds = idsByPath(current.pages, ancestor ?? {});
    const fileByName = new Map<string, FileRow>();
    for (const file of current.files) if (!fileByName.has(file.name)) fileByName.set(file.name, file);
    const usedPages = new Set<string>();
    const usedFiles = new Set<string>();
    const layout = readLayout(
      {
        markdown,
        assets: entries.filter((e) => !isMarkdown(e.path)).map((e) => e.path),
        gitbookYaml: yamlEntry ? blobs.get(yamlEntry.oid)?.toString('utf8') : null,
        projectDirectory: project,
      },
      {
        pageId: (path) => {
          const known = pathIds.get(path);
          const id = known && !usedPages.has(known) ? known : newId();
          usedPages.add(id);
          return id;
        },
        fileId: (path) => {
          const known = fileByName.get(path.slice(path.lastIndexOf('/') + 1))?.id;
          const id = known && !usedFiles.has(known) ? known : newId();
          usedFiles.add(id);
          return id;
        },
      },
    );
    const tooDeep = pageDepthProblem(layout.pages);
    if (tooDeep) throw new GitSyncError('NOT_GITBOOK_LAYOUT', `The repository nests its pages too deeply: ${tooDeep}`);
    const byPath = new Map(entries.map((e) => [e.path, e]));
    for (const file of layout.files) {
      const entry = byPath.get(file.path)!;
      if (entry.size > o.maxFileBytes)
        throw new GitSyncError('FILE_TOO_LARGE', `${file.path} is ${entry.size} bytes, more than the limit of ${o.maxFileBytes}`);
    }
    const files: FileRow[] = [];
    const describe = (file: { id: string; name: string }, stored: { sha256: string; size: number }, bytes: Buffer | null): FileRow => {
      const contentType = contentTypeOf(file.name);
      const { width, height } = bytes === null ? { width: null, height: null } : measureImage(bytes, contentType);
      return { id: file.id, name: file.name, contentType, size: stored.size, width, height, sha256: stored.sha256 };
    };
    // Small files are read in batches through one `git cat-file --batch`; large ones are streamed.
    const small = layout.files.filter((f) => byPath.get(f.path)!.size <= SMALL_FILE);
    const large = layout.files.filter((f) => byPath.get(f.path)!.size > SMALL_FILE);
    for (let start = 0; start < small.length;) {
      let bytes = 0;
      let end = start;
      while (end < small.length && (end === start || bytes + byPath.get(small[end].path)!.size <= BATCH_BYTES))
        bytes += byPath.get(small[end++].path)!.size;
      const batch = small.slice(start, end);
      const contents = await readBlobs(gitDir, [...new Set(batch.map((f) => byPath.get(f.path)!.oid))]);
      for (const file of batch) {
        const data = contents.get(byPath.get(file.path)!.oid) ?? Buffer.alloc(0);
        const sha256 = await o.blobs.put(data);
        files.push(describe(file, { sha256, size: data.length }, data));
      }
      start = end;
      beat({ phase: 'assets', stored: files.length, total: layout.files.length });
    }
    for (const file of large) {
      const entry = byPath.get(file.path)!; // its size was checked against maxFileBytes above
      const { stream, done } = blobStream(gitDir, entry.oid);
      const [sha256] = await Promise.all([o.blobs.putStream(stream), done]);
      const stored = { sha256, size: entry.size };
      const head =
        contentTypeOf(file.name).startsWith('image/') && stored.size <= 10 * 1024 * 1024 ? await o.blobs.get(stored.sha256) : null;
      files.push(describe(file, stored, head));
      beat({ phase: 'assets', stored: files.length, total: layout.files.length });
    }
    return { pages: layout.pages, files, warnings: layout.warnings };
  }

  async function runImport(request: GitSyncRequestRow, remote: GitRemote): Promise<GitSyncOutcome> {
    const o = opts();
    const gitDir = await ensureCache(o, orm, request);
    return withCache(gitDir, async () => {
      beat({ phase: 'fetching' });
      const commit = (await fetchRef(gitDir, remote, request.params.ref, o.timeoutMs))!;
      const message = (await git(['log', '-1', '--format=%B', commit], { gitDir })).toString('utf8').trim();
      const em = orm.em.fork();
      const sync = await loadGitSync(em, request.space_id);
      const space = await lockSpace(em, request.space_id);
      if (!space || space.deleted_at) return recordFailure(orm, request, 'SPACE_GONE', 'The space no longer exists');
      if (!request.params.force && sync?.last_commit === commit && sync.last_revision) {
        // The same push again (or the commit an export produced): nothing to change.
        return finishUnchanged(request, commit, sync);
      }
      const current = { pages: await loadPageMap(em, space.revision_id, false), files: await loadFiles(em, space.revision_id) };
      const ancestorId = sync?.last_revision ?? null;
      const ancestor = ancestorId ? await loadPageMap(em, ancestorId, false) : null;
      const theirs = await readCommit(gitDir, commit, request, current, ancestor);
      beat({ phase: 'writing', pages: Object.keys(theirs.pages).length, files: theirs.files.length });
      const gitMeta = {
        oid: commit,
        message,
        ref: request.params.ref,
        createdByService: false,
        ...(request.params.repoCommitURL ? { url: `${request.params.repoCommitURL}${commit}` } : {}),
      };
      return orm.em.fork().transactional(async (tx) => {
        const locked = await lockQueuedRequest(tx, request.id);
        if (!locked) return outcomeOf((await loadGitSyncRequest(tx, request.id))!);
        const state = await lockGitSync(tx, request.space_id);
        if (!request.params.force && state.last_applied_at && new Date(request.requested_at) < new Date(state.last_applied_at)) {
          await finishGitSyncRequest(tx, request.id, 'skipped', {
            detail: { code: 'OUT_OF_ORDER', message: 'A later sync was applied first' },
          });
          return { state: 'skipped' as const, code: 'OUT_OF_ORDER' };
        }
        const spaceNow = (await lockSpace(tx, request.space_id))!;
        const oursText = await loadPageMap(tx, spaceNow.revision_id, true);
        const ourFiles = await loadFiles(tx, spaceNow.revision_id);
        const theirFileIds = new Set(theirs.files.map((f) => f.id));
        const appliedAt = later(state.last_applied_at, new Date(request.requested_at));
        const standalone = request.params.standalone === true;
        const spaceMoved = state.last_revision !== null && state.last_revision !== spaceNow.revision_id;

        let result = theirs.pages;
        let removedFiles = ourFiles.filter((f) => !theirFileIds.has(f.id)).map((f) => f.id);
        if (!standalone && spaceMoved && state.last_revision) {
          // Both sides may have changed since the last synced commit: merge three ways.
          const base = await loadPageMap(tx, state.last_revision, true);
          const merged = mergePageMaps(base, oursText, theirs.pages);
          if (merged.conflicts.length > 0) {
            const changeRequestId = newId();
            const revisionId = await writeRevision(tx, {
              spaceId: request.space_id,
              parents: [spaceNow.revision_id],
              type: 'edits',
              changeRequestId,
              base: { revisionId: spaceNow.revision_id, pages: oursText },
              pages: theirs.pages,
              addedFiles: theirs.files,
              removedFiles,
            });
            await setRevisionGit(tx, revisionId, gitMeta);
            const number = await insertChangeRequest(tx, {
              id: changeRequestId,
              spaceId: request.space_id,
              subject: `Git Sync: ${message.split('\n')[0].slice(0, 80)} (${commit.slice(0, 7)})`,
              createdBy: request.requested_by,
              revisionId,
              initialRevisionId: spaceNow.revision_id,
            });
            const text = `Commit ${commit.slice(0, 7)} and the space changed the same content (${merged.conflicts.length} conflict${merged.conflicts.length === 1 ? '' : 's'}); the repository's version is in change request #${number}, the space kept its content`;
            await updateGitSync(tx, request.space_id, {
              status: 'conflict',
              last_operation: 'import',
              conflict_change_request: changeRequestId,
              last_applied_at: appliedAt,
              last_sync_error: { code: 'CONFLICT', message: text, at: new Date().toISOString() },
            });
            await finishGitSyncRequest(tx, request.id, 'conflict', {
              revisionId,
              commit,
              detail: { code: 'CONFLICT', message: text, changeRequestId },
            });
            return { state: 'conflict' as const, revisionId, commit, changeRequestId, code: 'CONFLICT', message: text };
          }
          result = merged.result;
          const baseFiles = new Set((await loadFiles(tx, state.last_revision)).map((f) => f.id));
          removedFiles = ourFiles.filter((f) => baseFiles.has(f.id) && !theirFileIds.has(f.id)).map((f) => f.id);
        }

        if (!standalone && deepEqual(result, oursText) && sameFiles(ourFiles, theirs.files) && removedFiles.length === 0) {
          await updateGitSync(tx, request.space_id, {
            status: 'ok',
            last_operation: 'import',
            last_commit: commit,
            last_revision: spaceNow.revision_id,
            last_applied_at: appliedAt,
            last_sync_error: null,
            conflict_change_request: null,
          });
          await finishGitSyncRequest(tx, request.id, 'unchanged', { revisionId: spaceNow.revision_id, commit });
          return { state: 'unchanged' as const, revisionId: spaceNow.revision_id, commit };
        }
        const revisionId = await writeRevision(tx, {
          spaceId: request.space_id,
          parents: [spaceNow.revision_id],
          type: 'edits',
          base: { revisionId: spaceNow.revision_id, pages: oursText },
          pages: result,
          addedFiles: theirs.files,
          removedFiles,
        });
        await setRevisionGit(tx, revisionId, gitMeta);
        // The ancestor of the next merge is the content of this commit exactly.
        let syncedRevision = revisionId;
        if (result !== theirs.pages) {
          syncedRevision = await writeRevision(tx, {
            spaceId: request.space_id,
            parents: [spaceNow.revision_id],
            type: 'edits',
            base: { revisionId: spaceNow.revision_id, pages: oursText },
            pages: theirs.pages,
            addedFiles: theirs.files,
            removedFiles: ourFiles.filter((f) => !theirFileIds.has(f.id)).map((f) => f.id),
          });
          await setRevisionGit(tx, syncedRevision, gitMeta);
        }
        if (!standalone) {
          await setSpaceRevision(tx, request.space_id, revisionId);
          await syncSearchIndex(tx, request.space_id, { from: spaceNow.revision_id, before: oursText, after: result });
        }
        await updateGitSync(tx, request.space_id, {
          status: 'ok',
          last_operation: 'import',
          last_applied_at: appliedAt,
          last_sync_error: null,
          conflict_change_request: null,
          ...(standalone ? {} : { last_commit: commit, last_revision: syncedRevision }),
        });
        await finishGitSyncRequest(tx, request.id, 'applied', {
          revisionId,
          commit,
          detail: theirs.warnings.length ? { message: theirs.warnings.slice(0, 20).join('; ') } : null,
        });
        return { state: 'applied' as const, revisionId, commit };
      });
    });
  }

  async function finishUnchanged(request: GitSyncRequestRow, commit: string, sync: GitSyncRow): Promise<GitSyncOutcome> {
    return orm.em.fork().transactional(async (tx) => {
      if (!(await lockQueuedRequest(tx, request.id))) return outcomeOf((await loadGitSyncRequest(tx, request.id))!);
      const state = await lockGitSync(tx, request.space_id);
      await updateGitSync(tx, request.space_id, {
        status: 'ok',
        last_operation: request.kind,
        last_applied_at: later(state.last_applied_at, new Date(request.requested_at)),
        last_sync_error: null,
      });
      await finishGitSyncRequest(tx, request.id, 'unchanged', { revisionId: sync.last_revision, commit });
      return { state: 'unchanged' as const, commit, ...(sync.last_revision ? { revisionId: sync.last_revision } : {}) };
    });
  }

  async function runExport(request: GitSyncRequestRow, remote: GitRemote): Promise<GitSyncOutcome> {
    const o = opts();
    const gitDir = await ensureCache(o, orm, request);
    return withCache(gitDir, async () => {
      const em = orm.em.fork();
      const space = await lockSpace(em, request.space_id);
      if (!space || space.deleted_at) return recordFailure(orm, request, 'SPACE_GONE', 'The space no longer exists');
      const revisionId = space.revision_id;
      const [pages, files] = await Promise.all([loadPageMap(em, revisionId, true), loadFiles(em, revisionId)]);
      beat({ phase: 'fetching' });
      const ref = request.params.ref;
      const parent = await fetchRef(gitDir, remote, ref, o.timeoutMs, true);
      const project = cleanPath(request.params.repoProjectDirectory ?? '');
      let yaml: string | null = null;
      if (parent) {
        yaml = await git(['show', `${parent}:${project === '' ? '.gitbook.yaml' : `${project}/.gitbook.yaml`}`], { gitDir }).then(
          (b) => b.toString('utf8'),
          () => null,
        );
      }
      const config = parseGitbookYaml(yaml);
      const rendered = renderLayout(pages, files, { projectDirectory: project, config });
      beat({ phase: 'writing', pages: Object.keys(rendered.pageFiles).length, files: rendered.assets.length });
      const work = await mkdtemp(join(tmpdir(), 'git-export-'));
      try {
        const env = { GIT_INDEX_FILE: join(work, '.index') };
        const tree = join(work, 'tree');
        await mkdir(tree);
        if (parent) await git(['read-tree', parent], { gitDir, env });
        else await git(['read-tree', '--empty'], { gitDir, env });
        const base = cleanPath([project, config.root].filter(Boolean).join('/'));
        const inBase = (p: string) => base === '' || p.startsWith(`${base}/`);
        const assetsDir = cleanPath(`${base}/.gitbook/assets`);
        const managed = (await git(['ls-files', '-z'], { gitDir, env }))
          .toString('utf8')
          .split('\0')
          .filter((p) => p !== '' && inBase(p) && (isMarkdown(p) || p.startsWith(`${assetsDir}/`)));
        if (managed.length > 0) {
          // update-index refuses to run without a work tree (the cache is bare); it reads nothing from it.
          await git(['--work-tree', tree, 'update-index', '--force-remove', '-z', '--stdin'], {
            gitDir,
            env,
            input: `${managed.join('\0')}\0`,
          });
        }
        const written: string[] = [];
        for (const [path, text] of Object.entries(rendered.texts)) {
          await mkdir(dirname(join(tree, path)), { recursive: true });
          await writeFile(join(tree, path), text);
          written.push(path);
        }
        const fileById = new Map(files.map((f) => [f.id, f]));
        for (const asset of rendered.assets) {
          const bytes = await o.blobs.get(fileById.get(asset.fileId)!.sha256);
          if (bytes === null) continue;
          await mkdir(dirname(join(tree, asset.path)), { recursive: true });
          await writeFile(join(tree, asset.path), bytes);
          written.push(asset.path);
        }
        await git(['--work-tree', tree, 'add', '--pathspec-from-file=-', '--pathspec-file-nul'], {
          gitDir,
          env,
          input: `${written.join('\0')}\0`,
          cwd: tree,
        });
        const treeId = (await git(['write-tree'], { gitDir, env })).toString().trim();
        const parentTree = parent ? (await git(['rev-parse', `${parent}^{tree}`], { gitDir })).toString().trim() : null;
        let commit = parent;
        const message = request.params.commitMessage ?? 'Update from the documentation service';
        if (treeId !== parentTree) {
          commit = (await git(['commit-tree', treeId, ...(parent ? ['-p', parent] : []), '-F', '-'], { gitDir, input: message }))
            .toString()
            .trim();
          await noteExportCommit(orm.em.fork(), request.id, commit);
          beat({ phase: 'pushing' });
          await gitRemote(
            remote,
            ref,
            ['push', '--quiet', '--porcelain', remote.url, `${request.params.force ? '+' : ''}${commit}:${ref}`],
            { gitDir, timeoutMs: o.timeoutMs },
          );
        }
        return orm.em.fork().transactional(async (tx) => {
          if (!(await lockQueuedRequest(tx, request.id))) return outcomeOf((await loadGitSyncRequest(tx, request.id))!);
          const state = await lockGitSync(tx, request.space_id);
          await setRevisionGit(tx, revisionId, {
            oid: commit,
            message,
            ref,
            createdByService: true,
            ...(request.params.repoCommitURL ? { url: `${request.params.repoCommitURL}${commit}` } : {}),
          });
          await updateGitSync(tx, request.space_id, {
            status: 'ok',
            last_operation: 'export',
            last_commit: commit,
            last_revision: revisionId,
            last_sync_error: null,
            last_applied_at: later(state.last_applied_at, new Date(request.requested_at)),
          });
          // The branch already at this export's own commit: an earlier attempt pushed it and died before recording it.
          const pushedEarlier = parent !== null && parent === request.commit;
          const outcome = commit === parent && !pushedEarlier ? 'unchanged' : 'applied';
          await finishGitSyncRequest(tx, request.id, outcome, { revisionId, commit });
          return { state: outcome, revisionId, ...(commit ? { commit } : {}) } as GitSyncOutcome;
        });
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });
  }

  return {
    /**
     * Applies one queued import or export. Readable failures (bad ref, refused credentials,
     * unreachable host, not a GitBook layout, file too large) are recorded on the space's git
     * info and returned; anything else is thrown for Temporal to retry.
     */
    async runGitSyncRequest(requestId: string): Promise<GitSyncOutcome> {
      const request = await loadGitSyncRequest(orm.em.fork(), requestId);
      if (!request) return fail('GONE', 'The request no longer exists');
      if (request.state !== 'queued') return outcomeOf(request);
      const sync = await loadGitSync(orm.em.fork(), request.space_id);
      if (!request.params.force && sync?.last_applied_at && new Date(request.requested_at) < new Date(sync.last_applied_at)) {
        await orm.em.fork().transactional((tx) =>
          finishGitSyncRequest(tx, request.id, 'skipped', {
            detail: { code: 'OUT_OF_ORDER', message: 'A later sync was applied first' },
          }),
        );
        return { state: 'skipped', code: 'OUT_OF_ORDER' };
      }
      return heartbeating(async () => {
        try {
          const credentials = request.credentials
            ? (JSON.parse((await opts().secrets()).open(request.credentials, requestSecretContext(request.id))) as {
                username: string;
                password: string;
              })
            : null;
          const remote = await prepareRemote(request.params.url, credentials, opts().policy);
          return request.kind === 'import' ? await runImport(request, remote) : await runExport(request, remote);
        } catch (error) {
          if (error instanceof GitSyncError || error instanceof LayoutError) return recordFailure(orm, request, error.code, error.message);
          if (error instanceof RangeError && /larger than/.test(error.message))
            return recordFailure(orm, request, 'FILE_TOO_LARGE', `A file is ${error.message}`);
          throw error;
        }
      });
    },

    /** Records a request that failed for good (retries exhausted) with the reason given. */
    async recordGitSyncFailure(input: { requestId: string; message: string }): Promise<void> {
      const request = await loadGitSyncRequest(orm.em.fork(), input.requestId);
      if (request && request.state === 'queued') await recordFailure(orm, request, 'GIT_ERROR', input.message);
    },
  };
}

export type GitSyncActivities = ReturnType<typeof gitSyncActivities>;
