import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadFiles, loadPageMap, loadReusableContentTexts } from '../db/content.ts';
import {
  finishGitSyncRequest,
  loadGitSyncRequest,
  lockGitSync,
  lockQueuedRequest,
  lockSpace,
  noteExportCommit,
  setRevisionGit,
  updateGitSync,
  type GitSyncRequestRow,
} from '../db/git-sync.ts';
import { forkEm, transaction, type Orm } from '../db/orm.ts';
import { appliedAt } from '../domain/git/import-decision.ts';
import { renderLayout, type ParentLayoutFiles } from '../domain/git/layout.ts';
import { cleanPath, parseGitbookYaml } from '../domain/git/summary.ts';
import { git, gitRemote, type GitRemote } from '../lib/git-cli.ts';
import { beat } from '../lib/heartbeat.ts';
import type { GitSyncActivityOptions } from './git-sync-options.ts';
import { outcomeOf, recordFailure, type GitSyncOutcome } from './git-sync-outcome.ts';
import { ensureCache, fetchRef, listTree, withCache } from './git-sync-repository.ts';
import { markdownWithinLimits, readMarkdown } from './git-sync-stage.ts';

/**
 * An export: the space's current content rendered into the GitBook layout on top of the branch's
 * tip (each page, the summary, each reusable content and file that reads back there as it is now
 * keeps its file as it is; only what changed is written), committed in the repository cache and pushed, then recorded in one transaction. The commit
 * is noted on the request before the push, so an attempt that dies after pushing is recognised by
 * the next one (the branch already at that commit) and recorded as applied, never pushed twice.
 */

const isMarkdown = (path: string) => /\.(md|markdown)$/i.test(path);

export async function runExport(
  orm: Orm,
  o: GitSyncActivityOptions,
  request: GitSyncRequestRow,
  remote: GitRemote,
): Promise<GitSyncOutcome> {
  const gitDir = await ensureCache(o.cacheDir, orm, request);
  return withCache(gitDir, async () => {
    const em = forkEm(orm);
    const space = await lockSpace(em, request.space_id);
    if (!space || space.deleted_at) return recordFailure(orm, request, 'SPACE_GONE', 'The space no longer exists');
    const revisionId = space.revision_id;
    const [pages, files, reusableContents] = await Promise.all([
      loadPageMap(em, revisionId, true),
      loadFiles(em, revisionId),
      loadReusableContentTexts(em, revisionId),
    ]);
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
    // The parent's files: what still reads back as the content is now is kept as it is there.
    let parentFiles: ParentLayoutFiles | null = null;
    if (parent) {
      const entries = (await listTree(gitDir, parent)).filter(
        (e) => e.type === 'blob' && e.mode !== '120000' && (project === '' || e.path.startsWith(`${project}/`)),
      );
      // Read within the limits an import reads (GIT_MAX_MARKDOWN_*): a branch holding more is refused, readably.
      const readable = entries.filter((e) => isMarkdown(e.path));
      markdownWithinLimits(o, readable);
      parentFiles = {
        markdown: await readMarkdown(gitDir, readable),
        assets: entries.filter((e) => !isMarkdown(e.path)).map((e) => e.path),
        gitbookYaml: yaml,
      };
    }
    const rendered = renderLayout(pages, files, { projectDirectory: project, config, reusableContents, parent: parentFiles });
    beat({ phase: 'writing', pages: Object.keys(rendered.pageFiles).length, files: rendered.assets.length });
    const work = await mkdtemp(join(tmpdir(), 'git-export-'));
    try {
      const env = { GIT_INDEX_FILE: join(work, '.index') };
      const tree = join(work, 'tree');
      await mkdir(tree);
      if (parent) await git(['read-tree', parent], { gitDir, env });
      else await git(['read-tree', '--empty'], { gitDir, env });
      // The parent's layout files that are not written again go (removed pages and files); every
      // other file of the branch stays as it is.
      const renderedPaths = new Set([...Object.keys(rendered.texts), ...rendered.assets.map((a) => a.path)]);
      const managed = [...new Set(rendered.owned)].filter((p) => !renderedPaths.has(p));
      if (managed.length > 0) {
        // update-index refuses to run without a work tree (the cache is bare); it reads nothing from it.
        await git(['--work-tree', tree, 'update-index', '--force-remove', '-z', '--stdin'], {
          gitDir,
          env,
          input: `${managed.join('\0')}\0`,
        });
      }
      const written: string[] = [];
      const kept = new Set(rendered.kept);
      for (const [path, text] of Object.entries(rendered.texts)) {
        if (kept.has(path)) continue;
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
      if (written.length > 0)
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
        await noteExportCommit(forkEm(orm), request.id, commit);
        beat({ phase: 'pushing' });
        await gitRemote(remote, ref, ['push', '--quiet', '--porcelain', remote.url, `${request.params.force ? '+' : ''}${commit}:${ref}`], {
          gitDir,
          timeoutMs: o.timeoutMs,
        });
      }
      return await transaction(forkEm(orm), async (tx) => {
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
          last_applied_at: appliedAt(state.last_applied_at, new Date(request.requested_at)),
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
