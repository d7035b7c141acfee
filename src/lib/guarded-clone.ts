/**
 * A shallow `git clone` of a user-given repository URL under the guarded fetcher's rules: the
 * URL is checked first (`checkUrl`, whose FetchError codes callers report), then git runs with the
 * configuration every remote gets (src/lib/git-cli.ts `remoteEnv`: pinned addresses, no redirects,
 * credentials through the environment). Bounded in time and in bytes on disk.
 */
import { spawn } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { baseEnv, remoteEnv } from './git-cli.ts';
import { checkUrl, redactUrl, type FetchPolicy } from './guarded-fetch.ts';

export interface CloneLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Called every second while the clone runs (heartbeats). */
  onProgress?: (bytes: number) => void;
}

export class CloneError extends Error {
  readonly code: 'CLONE_FAILED' | 'TOO_LARGE' | 'FETCH_TIMEOUT';
  constructor(code: CloneError['code'], message: string) {
    super(message);
    this.name = 'CloneError';
    this.code = code;
  }
}

/** Bytes under a directory (regular files, not following links). */
export async function directorySize(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(path);
    else if (entry.isFile()) total += (await lstat(path).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** Clones the default branch of `url` (depth 1) into `target`, which must not exist. */
export async function guardedClone(url: string, target: string, policy: FetchPolicy, limits: CloneLimits): Promise<void> {
  const { url: parsed, addresses } = await checkUrl(url, policy);
  const shown = redactUrl(parsed);
  const credentials =
    parsed.username !== '' || parsed.password !== ''
      ? { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) }
      : null;
  const bare = new URL(parsed.href);
  bare.username = '';
  bare.password = '';
  bare.hash = '';
  // The same pinned, redirect-free, credential-in-environment configuration as every git remote.
  const env = baseEnv(remoteEnv(bare, addresses, credentials, policy));
  const args = ['clone', '--depth', '1', '--single-branch', '--no-tags', '--no-recurse-submodules', '--quiet', '--', bare.href, target];
  const child = spawn('git', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString('utf8');
  });
  let stopped: CloneError | null = null;
  const stop = (error: CloneError) => {
    stopped ??= error;
    child.kill('SIGKILL');
  };
  const deadline = setTimeout(
    () => stop(new CloneError('FETCH_TIMEOUT', `Cloning ${shown} took longer than ${limits.timeoutMs} ms`)),
    limits.timeoutMs,
  );
  const watch = setInterval(() => {
    void directorySize(target).then((bytes) => {
      limits.onProgress?.(bytes);
      if (bytes > limits.maxBytes) stop(new CloneError('TOO_LARGE', `The repository ${shown} is larger than ${limits.maxBytes} bytes`));
    });
  }, 1000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (stopped) throw stopped;
    if (code !== 0) {
      const reason = stderr.replace(/\s+/g, ' ').trim().split(bare.href).join(shown).slice(0, 500) || `git exited with ${code}`;
      throw new CloneError('CLONE_FAILED', `Could not clone ${shown}: ${reason}`);
    }
    if ((await directorySize(target)) > limits.maxBytes)
      throw new CloneError('TOO_LARGE', `The repository ${shown} is larger than ${limits.maxBytes} bytes`);
  } finally {
    clearTimeout(deadline);
    clearInterval(watch);
  }
}
