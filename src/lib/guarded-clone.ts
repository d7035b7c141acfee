/**
 * A shallow `git clone` of a user-given repository URL under the guarded fetcher's rules: only
 * http(s); the host is resolved and checked first (`checkUrl`) and git connects to exactly the
 * addresses checked (`http.curloptResolve` pins them); redirects are refused; no other protocol,
 * helper, hook, prompt or user configuration is used. Credentials in the URL are sent as an
 * Authorization header through the environment, never on the command line. Bounded in time and
 * in bytes on disk.
 */
import { spawn } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
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
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  const host = parsed.hostname;
  const pinned = addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(',');

  const config: [string, string][] = [
    ['protocol.allow', 'never'],
    ['protocol.http.allow', 'always'],
    ['protocol.https.allow', 'always'],
    ['http.followRedirects', 'false'],
    ['http.curloptResolve', `${host}:${port}:${pinned}`],
    ['credential.helper', ''],
    ['core.hooksPath', '/dev/null'],
    ['core.askPass', ''],
    ['submodule.recurse', 'false'],
    ['transfer.fsckObjects', 'true'],
  ];
  if (parsed.username !== '' || parsed.password !== '') {
    const basic = Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`, 'utf8').toString('base64');
    config.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
  }
  const bare = new URL(parsed.href);
  bare.username = '';
  bare.password = '';
  bare.hash = '';

  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_HTTP_LOW_SPEED_LIMIT: '1000',
    GIT_HTTP_LOW_SPEED_TIME: String(Math.max(5, Math.ceil(policy.timeoutMs / 1000))),
    // Configuration through the environment keeps the credentials off the command line.
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(
      config.flatMap(([key, value], i) => [
        [`GIT_CONFIG_KEY_${i}`, key],
        [`GIT_CONFIG_VALUE_${i}`, value],
      ]),
    ),
  };
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
