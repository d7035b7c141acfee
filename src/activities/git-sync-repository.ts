import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { spaceOrganization, type GitSyncRequestRow } from '../db/git-sync.ts';
import { forkEm, type Orm } from '../db/orm.ts';
import { gitCacheName } from '../domain/git/cache.ts';
import { GitSyncError } from '../domain/git/errors.ts';
import { git, gitRemote, type GitRemote } from '../lib/git-cli.ts';

/**
 * Git Sync's repository caches: one bare repository per space and URL (or per organization and
 * `repoCacheID`) under GIT_CACHE_DIR, which fetches land in; imports read commits from it and
 * exports build theirs in it.
 */

/** One mutex per cache directory: git commands on one repository never overlap in this process. */
const cacheLocks = new Map<string, Promise<unknown>>();
export async function withCache<T>(dir: string, run: () => Promise<T>): Promise<T> {
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
export async function ensureCache(cacheDir: string, orm: Orm, request: GitSyncRequestRow): Promise<string> {
  const organizationId = (await spaceOrganization(forkEm(orm), request.space_id)) ?? `space:${request.space_id}`;
  const dir = join(
    cacheDir,
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
export async function fetchRef(
  gitDir: string,
  remote: GitRemote,
  ref: string,
  timeoutMs: number,
  missingOk = false,
): Promise<string | null> {
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

/** The full message of a commit. */
export async function commitMessage(gitDir: string, commit: string): Promise<string> {
  return (await git(['log', '-1', '--format=%B', commit], { gitDir })).toString('utf8').trim();
}

export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

/** Every entry of a commit's tree, recursively, with blob sizes. */
export async function listTree(gitDir: string, commit: string): Promise<TreeEntry[]> {
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
