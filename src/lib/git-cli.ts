/**
 * Running the `git` CLI against a user-given remote under the guarded fetcher's rules
 * (src/lib/guarded-fetch.ts): only http(s); every address the host resolves to must be public
 * unless allowed (FETCH_ALLOW_PRIVATE, FETCH_ALLOW_HOSTS); git connects to exactly the checked
 * addresses (`http.curloptResolve` pins DNS); redirects are refused (`http.followRedirects=false`);
 * other transports (file, ssh, ext) are disabled. Credentials go to git as an Authorization header
 * through GIT_CONFIG_* environment variables, never on the command line, in a URL git prints, or
 * in any message.
 */
import { spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { isIpLiteral } from '../domain/net.ts';
import { GitSyncError, classifyGitFailure, redactText, type GitSyncErrorCode } from '../domain/git/errors.ts';
import { checkUrl, FetchError, type FetchErrorCode, type FetchPolicy } from './guarded-fetch.ts';

/** How a refusal of the fetch rules reads as a git failure. */
const GIT_FAILURE_OF_FETCH: Partial<Record<FetchErrorCode, GitSyncErrorCode>> = {
  INVALID_URL: 'INVALID_URL',
  PROTOCOL_NOT_ALLOWED: 'INVALID_URL',
  ADDRESS_NOT_ALLOWED: 'ADDRESS_NOT_ALLOWED',
  DNS_FAILURE: 'UNREACHABLE',
  FETCH_TIMEOUT: 'TIMEOUT',
};

export interface GitRemote {
  /** The URL git is given: no credentials. */
  url: string;
  /** The same, for messages. */
  shown: string;
  /** Environment for every git command that talks to the remote. */
  env: Record<string, string>;
}

/** Checks a remote URL against the policy and prepares git's environment for it. Throws GitSyncError. */
export async function prepareRemote(
  rawUrl: string,
  credentials: { username: string; password: string } | null,
  policy: FetchPolicy,
): Promise<GitRemote> {
  let checked: Awaited<ReturnType<typeof checkUrl>>;
  try {
    checked = await checkUrl(rawUrl, policy);
  } catch (error) {
    if (!(error instanceof FetchError)) throw error;
    throw new GitSyncError(GIT_FAILURE_OF_FETCH[error.code] ?? 'UNREACHABLE', error.message);
  }
  const url = new URL(checked.url.href);
  const user = url.username ? decodeURIComponent(url.username) : credentials?.username;
  const pass = url.password ? decodeURIComponent(url.password) : credentials?.password;
  url.username = '';
  url.password = '';
  url.hash = '';
  const shown = url.href;
  const login = user === undefined && pass === undefined ? null : { username: user ?? '', password: pass ?? '' };
  return { url: shown, shown, env: remoteEnv(url, checked.addresses, login, policy) };
}

/**
 * git's configuration for one checked remote, as GIT_CONFIG_* environment variables (never on the
 * command line): http(s) only, no redirects, no credential helper, DNS pinned to the checked
 * addresses, credentials as an Authorization header.
 */
export function remoteEnv(
  url: URL,
  addresses: { address: string; family: number }[],
  credentials: { username: string; password: string } | null,
  policy: FetchPolicy,
): Record<string, string> {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const config: [string, string][] = [
    ['protocol.allow', 'never'],
    ['protocol.http.allow', 'always'],
    ['protocol.https.allow', 'always'],
    ['http.followRedirects', 'false'],
    ['credential.helper', ''],
    ['core.hooksPath', '/dev/null'],
    ['core.askPass', ''],
    ['submodule.recurse', 'false'],
    ['http.lowSpeedLimit', '1'],
    ['http.lowSpeedTime', String(Math.max(5, Math.ceil(policy.timeoutMs / 1000)))],
  ];
  if (!isIpLiteral(hostname)) {
    config.push([
      'http.curloptResolve',
      `${hostname}:${port}:${addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(',')}`,
    ]);
  }
  if (credentials) {
    config.push([
      'http.extraHeader',
      `Authorization: Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`,
    ]);
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

export interface RunOptions {
  gitDir?: string;
  cwd?: string;
  env?: Record<string, string>;
  input?: string | Buffer;
  timeoutMs?: number;
}

/** The environment every git command runs with: no prompts, no system or global config, a fixed identity. */
export function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Docs service',
    GIT_AUTHOR_EMAIL: 'docs-service@localhost',
    GIT_COMMITTER_NAME: 'Docs service',
    GIT_COMMITTER_EMAIL: 'docs-service@localhost',
    LC_ALL: 'C',
    ...extra,
  };
}

/** Runs git and resolves with its stdout; rejects with the raw failure (stderr redacted). */
export function git(args: string[], options: RunOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const fullArgs = options.gitDir ? [`--git-dir=${options.gitDir}`, ...args] : args;
    const child = spawn('git', fullArgs, { cwd: options.cwd, env: baseEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = options.timeoutMs ? setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), options.timeoutMs) : undefined;
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(e));
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitCommandError(redactText(Buffer.concat(err).toString('utf8')), timedOut));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

export class GitCommandError extends Error {
  readonly stderr: string;
  readonly timedOut: boolean;
  constructor(stderr: string, timedOut: boolean) {
    super(timedOut ? 'git took too long' : stderr.trim().split('\n').slice(-1)[0] || 'git failed');
    this.stderr = stderr;
    this.timedOut = timedOut;
  }
}

/** Runs a git command that talks to the remote; failures become GitSyncError with a readable reason. */
export async function gitRemote(remote: GitRemote, ref: string, args: string[], options: RunOptions): Promise<Buffer> {
  try {
    return await git(args, { ...options, env: { ...remote.env, ...options.env } });
  } catch (error) {
    if (error instanceof GitCommandError) {
      if (error.timedOut) throw new GitSyncError('TIMEOUT', `${remote.shown} took too long to answer`);
      throw classifyGitFailure(error.stderr, remote.shown, ref);
    }
    throw error;
  }
}

/** Streams one blob's bytes (`git cat-file blob <oid>`). */
export function blobStream(gitDir: string, oid: string): { stream: Readable; done: Promise<void> } {
  const child = spawn('git', [`--git-dir=${gitDir}`, 'cat-file', 'blob', oid], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git cat-file blob ${oid} failed`))));
  });
  return { stream: child.stdout, done };
}

/**
 * Reads many blobs through one `git cat-file --batch`; resolves oid → bytes. Each blob is copied
 * once into a buffer of its size as git writes it (never the output gathered and copied again),
 * so memory is the blobs asked for and little more: callers bound what they ask for.
 */
export function readBlobs(gitDir: string, oids: string[]): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const result = new Map<string, Buffer>();
    if (oids.length === 0) return resolve(result);
    const child = spawn('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch'], { env: baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    // The header line being read (`<oid> blob <size>`), or the blob being filled (its bytes and the LF after them).
    let head: Buffer[] = [];
    let body: { oid: string; bytes: Buffer; filled: number } | null = null;
    let index = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length) {
        if (body) {
          const n = Math.min(chunk.length - at, body.bytes.length - body.filled);
          chunk.copy(body.bytes, body.filled, at, at + n);
          body.filled += n;
          at += n;
          if (body.filled === body.bytes.length) {
            result.set(body.oid, body.bytes.subarray(0, body.bytes.length - 1));
            body = null;
            index++;
          }
          continue;
        }
        const nl = chunk.indexOf(10, at);
        if (nl === -1) {
          head.push(chunk.subarray(at));
          return;
        }
        head.push(chunk.subarray(at, nl));
        at = nl + 1;
        const parts = Buffer.concat(head).toString('utf8').split(' ');
        head = [];
        if (parts[1] === 'missing') {
          index++;
          continue;
        }
        body = { oid: parts[0], bytes: Buffer.allocUnsafe(Number(parts[2]) + 1), filled: 0 };
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && index >= oids.length ? resolve(result) : reject(new Error('git cat-file --batch failed'))));
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${oids.join('\n')}\n`);
  });
}

/** One blob read by `catFileBatch`: whole in memory, or a stream to read before the next blob comes. */
export type BatchBlob =
  { oid: string; size: number; bytes: Buffer; stream?: undefined } | { oid: string; size: number; bytes?: undefined; stream: Readable };

/** Resolves when `stream` can take more, or is destroyed (its reader gave up). */
const drained = (stream: PassThrough) =>
  new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });

/**
 * Reads blobs through one `git cat-file --batch`, in the order given, as git writes them: a blob
 * of up to `inMemoryUpTo` bytes whole (one buffer of its size, filled once), a larger one as a
 * stream. A stream fills while the caller asks for the next blob (as fast as it is read: memory
 * stays bounded whatever the sizes), so the caller reads it concurrently and must not wait for its
 * end before asking. Breaking out of the loop stops git. Throws when an object is missing or git
 * fails.
 */
export async function* catFileBatch(gitDir: string, oids: string[], inMemoryUpTo: number): AsyncGenerator<BatchBlob> {
  if (oids.length === 0) return;
  const child = spawn('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch'], { env: baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | Error | null>((resolve) => {
    child.once('error', resolve);
    child.once('close', resolve);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(`${oids.join('\n')}\n`);
  let index = 0;
  let header: Buffer | null = null;
  /** The blob being read: its bytes so far, or its stream. */
  let body: { oid: string; size: number; filled: number; bytes?: Buffer; stream?: PassThrough } | null = null;
  /** The newline git writes after each blob is still to come. */
  let newline = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let at = 0;
      while (at < chunk.length) {
        if (newline) {
          at++;
          newline = false;
          continue;
        }
        if (body === null) {
          const nl = chunk.indexOf(10, at);
          if (nl === -1) {
            header = header ? Buffer.concat([header, chunk.subarray(at)]) : Buffer.from(chunk.subarray(at));
            break;
          }
          const line = (header ? Buffer.concat([header, chunk.subarray(at, nl)]) : chunk.subarray(at, nl)).toString('utf8');
          header = null;
          at = nl + 1;
          const [oid, type, sizeText] = line.split(' ');
          if (oid !== oids[index] || type === 'missing' || type === undefined || !/^\d+$/.test(sizeText ?? ''))
            throw new Error(`git cat-file --batch answered "${line.slice(0, 100)}" for ${oids[index]}`);
          index++;
          const size = Number(sizeText);
          body = { oid, size, filled: 0 };
          if (size <= inMemoryUpTo) body.bytes = Buffer.allocUnsafe(size);
          else {
            body.stream = new PassThrough({ highWaterMark: 1024 * 1024 });
            yield { oid, size, stream: body.stream };
          }
        }
        const take = Math.min(body.size - body.filled, chunk.length - at);
        if (take > 0) {
          const piece = chunk.subarray(at, at + take);
          if (body.bytes) piece.copy(body.bytes, body.filled);
          else if (!body.stream!.destroyed && !body.stream!.write(piece)) await drained(body.stream!);
          body.filled += take;
          at += take;
        }
        if (body.filled === body.size) {
          const done = body;
          body = null;
          newline = true;
          if (done.bytes) yield { oid: done.oid, size: done.size, bytes: done.bytes };
          else done.stream!.end();
        }
      }
    }
    const code = await exited;
    if (code !== 0 || index < oids.length || body !== null)
      throw new Error(`git cat-file --batch failed${stderr ? `: ${redactText(stderr.trim()).slice(0, 200)}` : ''}`);
  } finally {
    // A reader of the stream cut short sees it close before its end (a premature close), not an end.
    if (body?.stream && !body.stream.writableFinished) body.stream.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
}
