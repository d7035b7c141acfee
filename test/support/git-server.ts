import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Real repositories over git's smart HTTP protocol for the tests: `git http-backend` (CGI) behind
 * a small Node server with basic authentication, listening on 127.0.0.1 (reached through the
 * fetch allow list). Repositories are bare directories under a temporary root.
 */
export interface GitServer {
  base: string;
  root: string;
  /** The clone URL of a repository, with the server's credentials unless `auth` is false or other ones are given. */
  url(name: string, auth?: false | { username: string; password: string }): string;
  /** Creates the repository (empty) if missing. */
  create(name: string): void;
  /** Commits `files` (null deletes) on `branch` and returns the commit id. */
  commit(
    name: string,
    files: Record<string, string | Buffer | null>,
    options?: { branch?: string; message?: string; date?: string },
  ): string;
  /** The files of a branch, as texts (or buffers for binary paths). */
  read(name: string, branch?: string): Record<string, Buffer>;
  head(name: string, branch?: string): string;
  /** Makes fetches from the repository wait this long before the server answers (0: no delay). */
  slow(name: string, delayMs: number): void;
  close(): Promise<void>;
}

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

const run = (args: string[], cwd?: string, env: Record<string, string> = {}) =>
  execFileSync('git', args, { cwd, env: { ...ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });

export async function startGitServer(credentials = { username: 'git-user', password: 's3cret-pass' }): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), 'git-server-'));
  const delays = new Map<string, number>();
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' });
      res.end('authentication required');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const delay = [...delays.entries()].find(([name]) => url.pathname.startsWith(`/${name}.git/git-upload-pack`))?.[1] ?? 0;
    if (delay > 0) {
      setTimeout(() => serve(req, res, url), delay);
      return;
    }
    serve(req, res, url);
  });
  const serve = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, url: URL) => {
    const child = spawn('git', ['http-backend'], {
      env: {
        ...ENV,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: credentials.username,
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    child.on('close', () => res.end());
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  const bare = (name: string) => join(root, `${name}.git`);

  const api: GitServer = {
    base,
    root,
    url(name, auth) {
      if (auth === false) return `${base}/${name}.git`;
      const c = auth ?? credentials;
      return `http://${encodeURIComponent(c.username)}:${encodeURIComponent(c.password)}@127.0.0.1:${port}/${name}.git`;
    },
    create(name) {
      if (existsSync(bare(name))) return;
      run(['init', '--bare', '--quiet', '--initial-branch=main', bare(name)]);
      run(['config', 'http.receivepack', 'true'], bare(name));
    },
    commit(name, files, options = {}) {
      api.create(name);
      const branch = options.branch ?? 'main';
      const work = mkdtempSync(join(tmpdir(), 'git-work-'));
      try {
        run(['init', '--quiet', `--initial-branch=${branch}`, work]);
        const hasBranch =
          run(['ls-remote', bare(name), `refs/heads/${branch}`])
            .toString()
            .trim() !== '';
        if (hasBranch) {
          run(['fetch', '--quiet', bare(name), `refs/heads/${branch}`], work);
          run(['checkout', '--quiet', '-B', branch, 'FETCH_HEAD'], work);
        }
        for (const [path, content] of Object.entries(files)) {
          const full = join(work, path);
          if (content === null) {
            if (existsSync(full)) unlinkSync(full);
            continue;
          }
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, content);
        }
        run(['add', '-A'], work);
        const dateEnv: Record<string, string> = options.date ? { GIT_AUTHOR_DATE: options.date, GIT_COMMITTER_DATE: options.date } : {};
        run(['commit', '--quiet', '--allow-empty', '-m', options.message ?? 'Update docs'], work, dateEnv);
        run(['push', '--quiet', bare(name), `HEAD:refs/heads/${branch}`], work);
        return run(['rev-parse', 'HEAD'], work).toString().trim();
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    slow(name, delayMs) {
      delays.set(name, delayMs);
    },
    head(name, branch = 'main') {
      return run(['rev-parse', `refs/heads/${branch}`], bare(name))
        .toString()
        .trim();
    },
    read(name, branch = 'main') {
      const out: Record<string, Buffer> = {};
      const list = run(['ls-tree', '-r', '-z', '--name-only', `refs/heads/${branch}`], bare(name)).toString('utf8');
      for (const path of list.split('\0').filter(Boolean)) out[path] = run(['show', `refs/heads/${branch}:${path}`], bare(name));
      return out;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  return api;
}
