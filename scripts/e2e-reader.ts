/**
 * `npm run e2e:reader`: a published site read end to end in GitBook's open-source site renderer
 * (github.com/GitbookIO/gitbook, a Next.js app), with this service as its only backend.
 *
 *  1. Prepares the renderer at a pinned commit (cached, idempotent): RENDERER_DIR if set, else a clone
 *     under the cache directory; Bun from the npm registry; its workspace built; its static assets.
 *  2. Starts this service on embedded defaults (as `npm start` does) on free ports, behind a small
 *     logging proxy that records every request the renderer and the browser make.
 *  3. Creates an organization, a space imported through Git Sync from a GitBook-layout repository
 *     served over git's smart HTTP, a public site with a custom hostname, and the renderer's own
 *     token: a site lookup token, which resolves the organization's site URLs and nothing else;
 *     then publishes GitBook's Mermaid integration from its source with GitBook's CLI, as an
 *     integrator does, and enables it on the space.
 *  4. Starts the renderer pointed at the service and checks in Chromium that the pages render, and
 *     what else it offers readers (a block of GitBook's Mermaid integration, llms.txt, llms-full.txt,
 *     pages as markdown, the sitemap, the MCP endpoint, the printable site) and site owners (a change
 *     request previewed through a preview link under SITE_PREVIEW_BASE_URL, a share-link site read by
 *     following its links).
 *  5. Unless READER_PRODUCTION=0: builds the renderer for production (once per commit), starts it
 *     and checks that the pages read reach this service as insights events (development builds
 *     never send them).
 *
 * Prints PASS/FAIL per check and the API calls the renderer made; exits non-zero on any failure.
 * Everything of a run (service and renderer logs, screenshots, requests.json) is kept under
 * `<cache>/runs/<time>/`.
 *
 * Environment: RENDERER_DIR (a renderer checkout to use), READER_CACHE_DIR (default
 * ~/.cache/docs-service/reader), CHROMIUM_PATH (default /usr/bin/chromium), READER_SITE_HOSTNAME
 * (default docs.reader-e2e.test), READER_KEEP=1 (leave everything running until Ctrl-C),
 * READER_PRODUCTION=0 (skip the production build),
 * DATABASE_URL and TEMPORAL_ADDRESS are passed on to the service when set.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startGitServer, type GitServer } from '../test/support/git-server.ts';

/**
 * GitBook's CLI as an integrator installs it (`--ignore-scripts`: its postinstall downloads
 * cloudflared, for `gitbook dev` only), and the GitbookIO/integrations commit whose Mermaid
 * integration it publishes from source.
 */
const CLI_VERSION = '0.25.1';
const INTEGRATIONS_COMMIT = 'fbf5fe9c686b4792ff336a590cf127f103d9c516';
const INTEGRATIONS_REPOSITORY = 'https://github.com/GitbookIO/integrations.git';
const INTEGRATIONS_MIRROR = '/work/.mirror/GitbookIO+integrations/repo';

/** The renderer's commit this service is checked against. */
const RENDERER_COMMIT = '49c993f18150af40dca13a9209bbb031e79fee8f';
const RENDERER_REPOSITORY = 'https://github.com/GitbookIO/gitbook.git';
const RENDERER_MIRROR = '/work/.mirror/GitbookIO+gitbook/repo';
/** The Bun release the renderer's `packageManager` names. */
const BUN_VERSION = '1.3.7';
/** The renderer's catalog pins a version of GitBook's client the registry no longer serves. */
const CLIENT_PIN = { from: '0.195.0', to: '0.202.0' };
/** In development mode the renderer only works on this port (GITBOOK_URL). */
const RENDERER_PORT = 3000;
/**
 * After the development server's checks, a production build of the renderer (built once per
 * commit) is started and read: only production builds send insights events, which must reach this
 * service. READER_PRODUCTION=0 skips it.
 */
const PRODUCTION = process.env.READER_PRODUCTION !== '0';

const ROOT = resolve(import.meta.dirname, '..');
const CACHE = resolve(
  process.env.READER_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'docs-service', 'reader'),
);
const HOSTNAME = process.env.READER_SITE_HOSTNAME ?? 'docs.reader-e2e.test';
/** The share-link site's custom hostname, and where previews live (SITE_PREVIEW_BASE_URL, the renderer's GITBOOK_PREVIEW_BASE_URL). */
const SHARE_HOSTNAME = `share.${HOSTNAME}`;
const PREVIEW_BASE = `https://preview.${HOSTNAME}/preview`;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RUN_DIR = join(CACHE, 'runs', new Date().toISOString().replace(/[:.]/g, '-'));
/**
 * The service's state for one run (embedded PostgreSQL, the Temporal dev server's database), under
 * the system's temporary directory: run as root, the embedded PostgreSQL runs as the `postgres`
 * user, who cannot reach a directory under root's home (nor a private temporary one).
 */
const DATA_DIR = mkdtempSync(join(tmpdir(), 'reader-e2e-'));
chmodSync(DATA_DIR, 0o755);

const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];

function say(line: string) {
  process.stdout.write(`[reader] ${line}\n`);
}

/** Runs a command to completion with its output shown, throwing on a non-zero exit. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  say(`$ ${[command, ...args].join(' ')}${options.cwd ? `   (in ${options.cwd})` : ''}`);
  execFileSync(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: 'inherit' });
}

/**
 * Runs a command to completion with its output shown, without blocking this process (whose
 * recording proxy must go on answering the command's requests); rejects on a non-zero exit.
 * `shown` is what is printed of it, when its arguments hold a secret.
 */
function runAside(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; shown?: string }): Promise<void> {
  say(`$ ${options.shown ?? [command, ...args].join(' ')}   (in ${options.cwd})`);
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${command} ${args[0]} exited with ${code}`))));
  });
}

/** Starts a long-running process in its own process group, its output in `logFile`. */
function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string }): ChildProcess {
  const log = createWriteStream(options.logFile);
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  children.push(child);
  return child;
}

/** Stops the processes first (their keep-alive connections would hold the servers open), then the rest. */
async function stopAll() {
  for (const child of children.splice(0).reverse()) {
    if (child.exitCode !== null || child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      continue;
    }
    const exited = await Promise.race([
      new Promise<boolean>((done) => child.once('exit', () => done(true))),
      new Promise<boolean>((done) => setTimeout(() => done(false), 20_000)),
    ]);
    if (!exited) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const close of closers.splice(0).reverse()) {
    await Promise.race([close().catch(() => undefined), new Promise((done) => setTimeout(done, 10_000))]);
  }
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function portInUse(port: number): Promise<boolean> {
  const server = createNetServer();
  return new Promise((done) => {
    server.once('error', () => done(true));
    server.listen(port, () => server.close(() => done(false)));
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, child?: ChildProcess): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`${what}: the process exited with code ${child.exitCode}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((done) => setTimeout(done, 1000));
  }
}

// ---------------------------------------------------------------------------------------------
// 1. The renderer
// ---------------------------------------------------------------------------------------------

interface Prepared {
  commit: string;
  steps: string[];
}

/** The Bun binary (from the npm registry, cached), installing it when missing. */
function bunBinary(): string {
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const name = `@oven/bun-${process.platform}-${arch}`;
  const prefix = join(CACHE, `bun-${BUN_VERSION}`);
  const binary = join(prefix, 'node_modules', name, 'bin', 'bun');
  if (!existsSync(binary)) {
    mkdirSync(prefix, { recursive: true });
    run('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `${name}@${BUN_VERSION}`]);
  }
  return binary;
}

function cloneRenderer(dir: string) {
  mkdirSync(join(dir, '..'), { recursive: true });
  if (existsSync(RENDERER_MIRROR)) {
    run('git', ['clone', '--quiet', '--no-checkout', RENDERER_MIRROR, dir]);
    run('git', ['-C', dir, 'checkout', '--quiet', '--detach', RENDERER_COMMIT]);
    return;
  }
  run('git', ['init', '--quiet', dir]);
  run('git', ['-C', dir, 'fetch', '--quiet', '--depth', '1', RENDERER_REPOSITORY, RENDERER_COMMIT]);
  run('git', ['-C', dir, 'checkout', '--quiet', '--detach', 'FETCH_HEAD']);
}

/** Clones (if needed), installs, builds and generates the renderer's assets; each step once per commit. */
function prepareRenderer(): string {
  const dir = resolve(process.env.RENDERER_DIR ?? join(CACHE, `gitbook-${RENDERER_COMMIT.slice(0, 9)}`));
  if (!existsSync(join(dir, 'package.json'))) cloneRenderer(dir);
  const head = execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD']).toString().trim();
  if (head !== RENDERER_COMMIT) say(`note: ${dir} is at ${head.slice(0, 9)}, not the pinned ${RENDERER_COMMIT.slice(0, 9)}`);

  const markerFile = join(dir, '.reader-prepared.json');
  const marker: Prepared = existsSync(markerFile) ? JSON.parse(readFileSync(markerFile, 'utf8')) : { commit: head, steps: [] };
  if (marker.commit !== head) marker.steps = [];
  marker.commit = head;
  const step = (name: string, fn: () => void) => {
    if (marker.steps.includes(name)) return;
    say(`renderer: ${name}`);
    fn();
    marker.steps.push(name);
    writeFileSync(markerFile, JSON.stringify(marker, null, 2));
  };

  const bun = bunBinary();
  const bunDir = join(bun, '..');
  const env = { ...process.env, PATH: `${bunDir}:${process.env.PATH}`, DO_NOT_TRACK: '1', TURBO_TELEMETRY_DISABLED: '1' };
  const app = join(dir, 'packages', 'gitbook');

  step('pin-client', () => {
    const file = join(dir, 'package.json');
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    const catalog = pkg.workspaces?.catalog;
    if (catalog?.['@gitbook/api'] === CLIENT_PIN.from) {
      catalog['@gitbook/api'] = CLIENT_PIN.to;
      writeFileSync(file, JSON.stringify(pkg, null, 4) + '\n');
    }
  });
  step('install', () => run('nice', ['-n', '10', bun, 'install'], { cwd: dir, env }));
  step('build-packages', () => run('nice', ['-n', '10', bun, 'x', 'turbo', 'run', 'build', '--filter=gitbook^...'], { cwd: dir, env }));
  step('generate-assets', () => {
    // The renderer's scripts/generate.sh, less the Google Fonts download (no internet needed) and
    // `wrangler types` (Cloudflare only).
    const withBins = { ...env, PATH: `${join(app, 'node_modules', '.bin')}:${join(dir, 'node_modules', '.bin')}:${env.PATH}` };
    run('nice', ['-n', '10', bun, './scripts/generate-mermaid-runtime.ts'], { cwd: app, env: withBins });
    run('nice', ['-n', '10', bun, './scripts/generate-scalar-runtime.ts'], { cwd: app, env: withBins });
    run('gitbook-math', ['./public/~gitbook/static/math'], { cwd: app, env: withBins });
    // Copies the contents, so a second run does not nest the folder inside itself.
    mkdirSync(join(app, 'public', '~gitbook', 'static', 'embed'), { recursive: true });
    run('cp', ['-r', '../embed/standalone/.', './public/~gitbook/static/embed'], { cwd: app, env: withBins });
  });
  step('icons', () => {
    // Every icon style, not only the custom icons as the renderer's own script does (its hosted
    // deployment serves the others from a CDN): the renderer fetches the icons it draws from
    // /~gitbook/static/icons, and a self-hosted one has nowhere else to get them.
    const withBins = { ...env, PATH: `${join(dir, 'node_modules', '.bin')}:${env.PATH}` };
    run('gitbook-icons', ['./public/~gitbook/static/icons'], { cwd: app, env: withBins });
  });
  if (PRODUCTION) {
    step('build-production', () => {
      // The renderer's build:local, less the asset generation done above, and without its type check
      // of the renderer's own sources (which fails at the pinned commit with the bun-types its
      // lockfile installs, `res.json<T>()`): what runs is what Next.js compiles either way.
      const config = join(app, 'next.config.mjs');
      const source = readFileSync(config, 'utf8');
      if (!source.includes('ignoreBuildErrors')) {
        writeFileSync(
          config,
          source.replace(
            'export default nextConfig;',
            'export default { ...nextConfig, typescript: { ...nextConfig.typescript, ignoreBuildErrors: true } };',
          ),
        );
      }
      const next = createRequire(join(app, 'package.json')).resolve('next/dist/bin/next');
      run('nice', ['-n', '10', process.execPath, next, 'build', '--webpack'], {
        cwd: app,
        env: { ...env, ...RENDERER_ENV, NODE_ENV: 'production' },
      });
    });
  }
  return app;
}

/** What the renderer is built and run with, besides the service's address and its token. */
const RENDERER_ENV = {
  GITBOOK_URL: `http://localhost:${RENDERER_PORT}`,
  GITBOOK_PREVIEW_BASE_URL: `${PREVIEW_BASE}/`,
  NEXT_TELEMETRY_DISABLED: '1',
  NODE_OPTIONS: '--max-old-space-size=6144',
};

// ---------------------------------------------------------------------------------------------
// 2. The service, behind a proxy that records requests
// ---------------------------------------------------------------------------------------------

interface Recorded {
  seq: number;
  at: string;
  from: 'renderer' | 'browser' | 'other';
  auth: 'server token' | 'site token' | 'none' | 'other';
  method: string;
  path: string;
  requestBody?: string;
  status: number;
  ms: number;
  responseBody?: string;
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function forward(target: number, req: IncomingMessage, headers: IncomingMessage['headers'], body: Buffer): Promise<Answer> {
  return new Promise((done, fail) => {
    const upstream = httpRequest({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => done({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
      answer.on('error', fail);
    });
    upstream.on('error', fail);
    upstream.end(body);
  });
}

/** A proxy in front of the service that records every request (answers are small: read whole). */
function startRecordingProxy(target: number, port: number, tokens: { server?: string }): { server: Server; log: Recorded[] } {
  const log: Recorded[] = [];
  let seq = 0;
  const handle = async (req: IncomingMessage, body: Buffer): Promise<Answer> => {
    const started = Date.now();
    const headers = { ...req.headers, host: `127.0.0.1:${target}` };
    const answer = await forward(target, req, headers, body);
    const text = answer.body.subarray(0, 20_000).toString('utf8');
    const json = String(answer.headers['content-type'] ?? '').includes('json');
    log.push({
      seq: ++seq,
      at: new Date(started).toISOString(),
      from: fromOf(req),
      auth: authOf(req, tokens.server),
      method: req.method ?? '',
      path: req.url ?? '',
      ...(body.length ? { requestBody: body.toString('utf8').slice(0, 500) } : {}),
      status: answer.status,
      ms: Date.now() - started,
      ...(answer.status >= 400 || json ? { responseBody: text } : {}),
    });
    return answer;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks)).then(
        (answer) => {
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        },
        (error) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(error));
        },
      );
    });
  });
  // Longer than the renderer's keep-alive, so an idle connection is never closed under a request.
  server.keepAliveTimeout = 72_000;
  server.listen(port, '127.0.0.1');
  return { server, log };
}

function fromOf(req: IncomingMessage): Recorded['from'] {
  const agent = String(req.headers['user-agent'] ?? '');
  if (/Mozilla|Chrome/.test(agent)) return 'browser';
  if (agent.includes('GitBook')) return 'renderer';
  return 'other';
}

function authOf(req: IncomingMessage, serverToken?: string): Recorded['auth'] {
  const header = req.headers.authorization;
  if (!header) return 'none';
  const token = header.replace(/^Bearer\s+/i, '');
  if (token === serverToken) return 'server token';
  return token.split('.').length === 3 ? 'site token' : 'other';
}

interface Service {
  url: string;
  proxyUrl: string;
  log: Recorded[];
  /** The organization admin's API token, which sets everything up. */
  token: string;
  /** The renderer's token (a site lookup token, once created), as the recording proxy names it. */
  tokens: { server?: string };
  organizationId: string;
}

async function startService(): Promise<Service> {
  const [port, proxyPort, pgPort, temporalPort, temporalUiPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const url = `http://127.0.0.1:${port}`;
  const proxyUrl = `http://localhost:${proxyPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    // Absolute URLs (file downloads, links) point at the proxy, so the browser's requests are recorded too.
    PUBLIC_URL: proxyUrl,
    DATA_DIR: DATA_DIR,
    EMBEDDED_POSTGRES_PORT: String(pgPort),
    TEMPORAL_DEV_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(temporalUiPort),
    // The Git Sync repository is served on 127.0.0.1.
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    // The rate limits stay at their defaults: the renderer's tokens count against RATE_LIMIT_READER_MAX.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    SITE_PREVIEW_BASE_URL: PREVIEW_BASE,
    // On a shared Temporal server, a task queue of this run's own, so no other worker takes its jobs.
    ...(process.env.TEMPORAL_ADDRESS ? { TEMPORAL_TASK_QUEUE: `reader-e2e-${randomBytes(4).toString('hex')}` } : {}),
  };
  say(`service: starting on ${url} (logs: ${join(RUN_DIR, 'service.log')})`);
  const child = start(process.execPath, ['--import', './scripts/check-node.js', 'src/main.ts'], {
    cwd: ROOT,
    env,
    logFile: join(RUN_DIR, 'service.log'),
  });
  await waitFor(
    'service',
    async () => ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) })).ok ? true : undefined),
    180_000,
    child,
  );
  const boot = execFileSync(
    process.execPath,
    ['--import', './scripts/check-node.js', 'src/cli/admin.ts', 'bootstrap', '--org', 'Reader org', '--email', 'reader-e2e@example.com'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] },
  ).toString();
  const { token, organizationId } = JSON.parse(boot.slice(boot.indexOf('{')));
  const tokens: { server?: string } = {};
  const { server, log } = startRecordingProxy(port, proxyPort, tokens);
  closers.push(
    () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  );
  say(`service: ready; organization ${organizationId}; recording proxy on ${proxyUrl}`);
  return { url, proxyUrl, log, token, tokens, organizationId };
}

// ---------------------------------------------------------------------------------------------
// 3. Content: a GitBook-layout repository, imported and published
// ---------------------------------------------------------------------------------------------

/** A solid-colour PNG, so the image check has real bytes to decode. */
function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3])]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** What the checks look for, and the repository that holds it. */
const CONTENT = {
  siteTitle: 'Reader handbook',
  /** The page a change request adds, previewed before it is merged. */
  previewTitle: 'Upgrade notes',
  previewText: 'Only in the change request until it is merged.',
  hint: 'Readers see this hint on the first page.',
  tabs: ['macOS', 'Linux'],
  table: ['Setting', 'Default', 'LOG_LEVEL'],
  searchTerm: 'zebrafish',
  files: {
    '.gitbook.yaml': 'root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n',
    'SUMMARY.md': [
      '# Table of contents',
      '',
      '* [Welcome](README.md)',
      '* [Guides](guides/README.md)',
      '  * [Install](guides/install.md)',
      '  * [Configure](guides/configure.md)',
      '  * [Diagram](guides/diagram.md)',
      '* [Reference](reference.md)',
      '',
    ].join('\n'),
    'README.md': [
      '---',
      'description: Everything a reader needs, in one place.',
      '---',
      '',
      '# Welcome',
      '',
      'This handbook is read in the open-source renderer. Start with the [guides](guides/README.md).',
      '',
      '{% hint style="info" %}',
      'Readers see this hint on the first page.',
      '{% endhint %}',
      '',
    ].join('\n'),
    'guides/README.md': '# Guides\n\nStep-by-step guides: [install](install.md), then [configure](configure.md).\n',
    'guides/install.md': [
      '# Install',
      '',
      'Install the zebrafish command line tool on your machine.',
      '',
      '{% tabs %}',
      '{% tab title="macOS" %}',
      '```sh',
      'brew install zebrafish',
      '```',
      '{% endtab %}',
      '',
      '{% tab title="Linux" %}',
      '```sh',
      'apt-get install zebrafish',
      '```',
      '{% endtab %}',
      '{% endtabs %}',
      '',
    ].join('\n'),
    'guides/configure.md': [
      '# Configure',
      '',
      'The settings, with their defaults:',
      '',
      '| Setting | Default | Meaning |',
      '| --- | --- | --- |',
      '| LOG_LEVEL | info | How much is logged. |',
      '| PORT | 8080 | Where the API listens. |',
      '',
      '![The architecture](../.gitbook/assets/architecture.png)',
      '',
    ].join('\n'),
    // Drawn by GitBook's Mermaid integration, installed on the space: its block in the page's document.
    'guides/diagram.md': [
      '# Diagram',
      '',
      'How the parts meet:',
      '',
      '```mermaid',
      'graph TD',
      '  A[Reader] --> B[Renderer]',
      '```',
      '',
    ].join('\n'),
    'reference.md': '# Reference\n\nEvery command and option, listed.\n',
    '.gitbook/assets/architecture.png': png(240, 120, [40, 110, 200]),
  } satisfies Record<string, string | Buffer>,
};

/** The fields of the API's answers the script reads. */
interface ApiObject {
  id: string;
  [field: string]: unknown;
  status?: string;
  lastSyncedCommit?: string;
  space?: string;
  page?: string;
  token?: string;
}

async function api(service: Service, method: string, path: string, body?: unknown): Promise<ApiObject> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : { id: '' };
}

async function publishContent(service: Service): Promise<{ siteId: string; spaceId: string; git: GitServer }> {
  const git = await startGitServer();
  closers.push(() => git.close());
  const commit = git.commit('handbook', CONTENT.files, { message: 'Reader handbook' });
  const space = await api(service, 'POST', `/v1/orgs/${service.organizationId}/spaces`, { title: CONTENT.siteTitle });
  await api(service, 'POST', `/v1/spaces/${space.id}/git/import`, {
    url: git.url('handbook'),
    ref: 'refs/heads/main',
    timestamp: new Date().toISOString(),
  });
  const info = await waitFor(
    'Git Sync import',
    async () => {
      const current = await api(service, 'GET', `/v1/spaces/${space.id}/git/info`);
      return current.lastSyncedCommit === commit || current.status === 'error' ? current : undefined;
    },
    120_000,
  );
  if (info.lastSyncedCommit !== commit) throw new Error(`Git Sync import failed: ${JSON.stringify(info)}`);
  say(`content: space ${space.id} imported from git (commit ${String(info.lastSyncedCommit).slice(0, 9)})`);
  const site = await api(service, 'POST', `/v1/orgs/${service.organizationId}/sites`, {
    title: CONTENT.siteTitle,
    visibility: 'public',
    spaces: [space.id],
  });
  await api(service, 'PATCH', `/v1/orgs/${service.organizationId}/sites/${site.id}`, { hostname: HOSTNAME });
  await api(service, 'POST', `/v1/orgs/${service.organizationId}/sites/${site.id}/publish`);
  const lookup = await api(service, 'POST', '/v1/urls/published', { url: `https://${HOSTNAME}/` });
  say(`content: site ${site.id} published at https://${HOSTNAME}/ (lookup: space ${lookup.space}, page ${lookup.page ?? '-'})`);
  // The renderer's own token resolves the organization's site URLs and nothing else.
  const created = await api(service, 'POST', `/v1/orgs/${service.organizationId}/site-lookup-tokens`, { label: 'Site renderer' });
  service.tokens.server = created.token;
  return { siteId: site.id, spaceId: space.id, git };
}

/** GitBook's CLI and the packages its integrations build against, installed once under the cache; its `node_modules`. */
function prepareCli(): string {
  const dir = join(CACHE, `gitbook-cli-${CLI_VERSION}`);
  const modules = join(dir, 'node_modules');
  if (!existsSync(join(modules, '.bin', 'gitbook'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    const version = (name: string) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string;
    run('npm', [
      'install',
      '--prefix',
      dir,
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      `@gitbook/cli@${CLI_VERSION}`,
      `@gitbook/runtime@${version('@gitbook/runtime')}`,
      `@gitbook/api@${version('@gitbook/api')}`,
    ]);
  }
  return modules;
}

/** One integration's source folder of GitbookIO/integrations at the pinned commit, copied into `into`. */
function integrationSource(name: string, into: string) {
  let gitDir = INTEGRATIONS_MIRROR;
  if (!existsSync(gitDir)) {
    gitDir = join(CACHE, `gitbook-integrations-${INTEGRATIONS_COMMIT.slice(0, 9)}.git`);
    if (!existsSync(join(gitDir, 'HEAD'))) {
      run('git', ['init', '--quiet', '--bare', gitDir]);
      run('git', ['--git-dir', gitDir, 'fetch', '--quiet', '--depth', '1', INTEGRATIONS_REPOSITORY, INTEGRATIONS_COMMIT]);
    }
  }
  mkdirSync(into, { recursive: true });
  const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', INTEGRATIONS_COMMIT, `integrations/${name}`], {
    maxBuffer: 1 << 28,
  });
  execFileSync('tar', ['-x', '--strip-components=2', '-C', into], { input: archive });
}

/**
 * GitBook's Mermaid integration, built from its source and published by GitBook's CLI (`gitbook auth
 * --endpoint`, `gitbook publish .`) as an integrator does, its manifest's `organization` set to ours
 * (and, on a database other runs share, its `name` made this run's own: names are unique across
 * organizations); then installed in the organization and enabled on the space. Its ` ```mermaid `
 * code blocks become its `diagram` block, which the renderer draws through `renderIntegrationUi` as
 * a webframe on the integration's public endpoint. Answers the integration's name.
 */
async function installMermaid(service: Service, spaceId: string): Promise<string> {
  const name = process.env.DATABASE_URL ? `mermaid-${randomBytes(3).toString('hex')}` : 'mermaid';
  const modules = prepareCli();
  const dir = join(RUN_DIR, 'mermaid');
  integrationSource('mermaid', dir);
  symlinkSync(modules, join(dir, 'node_modules'));
  const manifest = join(dir, 'gitbook-manifest.yaml');
  writeFileSync(
    manifest,
    readFileSync(manifest, 'utf8')
      .replace(/^name: .*$/m, `name: ${name}`)
      .replace(/^organization: .*$/m, `organization: ${service.organizationId}`),
  );
  // The CLI keeps its endpoint and token in a configuration of this run's own; the token is not printed.
  const env = { ...process.env, XDG_CONFIG_HOME: join(RUN_DIR, 'gitbook-cli') };
  const gitbook = join(modules, '.bin', 'gitbook');
  await runAside(gitbook, ['auth', '--endpoint', service.proxyUrl, '--token', service.token], {
    cwd: dir,
    env,
    shown: `gitbook auth --endpoint ${service.proxyUrl} --token <the organization admin's token>`,
  });
  await runAside(gitbook, ['publish', '.'], { cwd: dir, env });
  const installation = await api(service, 'POST', `/v1/integrations/${name}/installations`, { organization: service.organizationId });
  await api(service, 'PATCH', `/v1/integrations/${name}/installations/${installation.id}/spaces/${spaceId}`, { configuration: {} });
  say(`content: GitBook's Mermaid integration (${name}) published by GitBook's CLI ${CLI_VERSION}, installed on space ${spaceId}`);
  return name;
}

/** What a site's owner does besides publishing: a change request to preview, a share-link site, the MCP page action. */
interface OwnerContent {
  /** The preview link (under PREVIEW_BASE) of the change request's page, with its token. */
  preview: URL;
  /** The share link's key of the share-link site (at SHARE_HOSTNAME). */
  shareKey: string;
}

async function prepareOwnerContent(service: Service, published: { siteId: string; spaceId: string }): Promise<OwnerContent> {
  const org = `/v1/orgs/${service.organizationId}`;
  // The MCP endpoint answers only when the site's page actions offer it.
  await api(service, 'PATCH', `${org}/sites/${published.siteId}/customization`, {
    pageActions: { items: ['markdown', 'external-ai', 'mcp'] },
  });
  // A change request with a page of its own, previewed before it is merged.
  const cr = await api(service, 'POST', `/v1/spaces/${published.spaceId}/change-requests`, { subject: 'Upgrade notes' });
  await api(service, 'POST', `/v1/spaces/${published.spaceId}/change-requests/${cr.id}/content?compat=false`, {
    changes: [{ operation: 'insert_page', title: CONTENT.previewTitle, document: { markdown: `${CONTENT.previewText}\n` } }],
  });
  const link = new URL((await api(service, 'GET', `${org}/sites/${published.siteId}/publishing/preview`)).url as string);
  const token = link.searchParams.get('token')!;
  const preview = new URL(`${PREVIEW_BASE}/${published.siteId}/~/changes/${cr.id}/upgrade-notes`);
  preview.searchParams.set('token', token);
  say(`content: change request ${cr.id} previewed at ${preview.origin}${preview.pathname}`);
  // The same space in a second site, readable through a share link only.
  const shared = await api(service, 'POST', `${org}/sites`, {
    title: 'Shared handbook',
    visibility: 'share-link',
    spaces: [published.spaceId],
  });
  await api(service, 'PATCH', `${org}/sites/${shared.id}`, { hostname: SHARE_HOSTNAME });
  await api(service, 'POST', `${org}/sites/${shared.id}/publish`);
  const share = await api(service, 'POST', `${org}/sites/${shared.id}/share-links`, { name: 'Partners' });
  say(`content: share-link site ${shared.id} at ${(share.urls as { published: string }).published}`);
  return { preview, shareKey: share.key as string };
}

// ---------------------------------------------------------------------------------------------
// 4. The renderer, and the checks in Chromium
// ---------------------------------------------------------------------------------------------

/**
 * Starts the renderer on RENDERER_PORT: its development server (tracking off, as development builds
 * always are), or the production build (`next start`), which sends insights events.
 */
async function startRenderer(
  app: string,
  service: Service,
  mode: 'development' | 'production',
): Promise<{ base: string; stop: () => Promise<void> }> {
  if (await portInUse(RENDERER_PORT)) throw new Error(`port ${RENDERER_PORT} is taken: the renderer needs it`);
  const logFile = join(RUN_DIR, `renderer-${mode}.log`);
  say(
    mode === 'development'
      ? `renderer: starting next dev on :${RENDERER_PORT} (logs: ${logFile}); the first page compiles for a minute or two`
      : `renderer: starting the production build (next start) on :${RENDERER_PORT} (logs: ${logFile})`,
  );
  // Bun hoists Next.js to the workspace root: resolve it as the app would.
  const next = createRequire(join(app, 'package.json')).resolve('next/dist/bin/next');
  const args = mode === 'development' ? ['dev', '--webpack'] : ['start'];
  const child = start('nice', ['-n', '10', process.execPath, next, ...args, '--port', String(RENDERER_PORT)], {
    cwd: app,
    logFile,
    env: {
      ...process.env,
      ...RENDERER_ENV,
      NODE_ENV: mode,
      GITBOOK_API_URL: service.proxyUrl,
      GITBOOK_API_TOKEN: service.tokens.server,
      ...(mode === 'development' ? { GITBOOK_DISABLE_TRACKING: '1' } : {}),
    },
  });
  const base = `http://localhost:${RENDERER_PORT}`;
  // Listening is enough: the first page request waits for the compilation.
  await waitFor('renderer', async () => ((await portInUse(RENDERER_PORT)) ? true : undefined), 180_000, child);
  const stop = async () => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await waitFor('renderer to stop', async () => ((await portInUse(RENDERER_PORT)) ? undefined : true), 60_000);
  };
  return { base, stop };
}

function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() === 0) {
    run('apt-get', ['install', '-y', 'chromium']);
    if (existsSync(CHROMIUM)) return CHROMIUM;
  }
  throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

async function check(results: Check[], name: string, page: Page, fn: () => Promise<string>, after?: string) {
  const before = results.find((r) => r.name === after);
  if (before && !before.ok) {
    results.push({ name, ok: false, detail: `not reached: "${after}" failed` });
    say(`FAIL  ${name}: not reached ("${after}" failed)`);
    return;
  }
  try {
    const detail = await fn();
    results.push({ name, ok: true, detail });
    say(`PASS  ${name}: ${detail}`);
  } catch (error) {
    const text = (
      await page
        .locator('body')
        .innerText({ timeout: 2000 })
        .catch(() => '')
    )
      .replace(/\s+/g, ' ')
      .slice(0, 300);
    const detail = `${error instanceof Error ? error.message.split('\n')[0] : String(error)}${text ? ` | page shows: ${text}` : ''}`;
    results.push({ name, ok: false, detail });
    say(`FAIL  ${name}: ${detail}`);
  }
  await page.screenshot({ path: join(RUN_DIR, `${name.replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => undefined);
}

async function runChecks(browser: Browser, base: string, mermaid: string): Promise<Check[]> {
  const results: Check[] = [];
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const url = (path: string) => `${base}/url/${HOSTNAME}/${path}`;
  const visible = { timeout: 20_000 };

  const load = async (path: string) => {
    const res = await page.goto(url(path), { timeout: 600_000, waitUntil: 'load' });
    if (!res || res.status() >= 400) throw new Error(`${url(path)} answered ${res?.status()}`);
    await page.locator('h1').first().waitFor(visible);
    return `${url(path)}: ${res.status()}`;
  };
  const HOME = 'home page loads';
  const INSTALL = 'nested page loads';
  const CONFIGURE = 'page with a table and an image loads';

  await check(results, HOME, page, () => load(''));
  await check(
    results,
    'title',
    page,
    async () => {
      const title = await page.title();
      const heading = (await page.locator('h1').first().innerText(visible)).trim();
      if (!title.includes('Welcome') || heading !== 'Welcome') throw new Error(`document title "${title}", heading "${heading}"`);
      return `"${title}"`;
    },
    HOME,
  );
  await check(
    results,
    'navigation',
    page,
    async () => {
      const toc = page.getByTestId('table-of-contents');
      await toc.waitFor(visible);
      const text = await toc.innerText();
      const missing = ['Welcome', 'Guides', 'Reference'].filter((title) => !text.includes(title));
      if (missing.length) throw new Error(`table of contents lacks ${missing.join(', ')}`);
      return 'the top-level pages are listed in the table of contents';
    },
    HOME,
  );
  await check(
    results,
    'hint',
    page,
    async () => {
      await page.locator('[role="note"]', { hasText: CONTENT.hint }).first().waitFor(visible);
      return 'shown as a note';
    },
    HOME,
  );
  await check(results, INSTALL, page, () => load('guides/install'));
  await check(
    results,
    'nested navigation',
    page,
    async () => {
      const toc = page.getByTestId('table-of-contents');
      await toc.waitFor(visible);
      const text = await toc.innerText();
      const missing = ['Install', 'Configure'].filter((title) => !text.includes(title));
      if (missing.length) throw new Error(`table of contents lacks ${missing.join(', ')} under Guides`);
      return "a nested page's section is expanded in the table of contents";
    },
    INSTALL,
  );
  await check(
    results,
    'tabs',
    page,
    async () => {
      const tabs = page.getByRole('tablist').first();
      await tabs.waitFor(visible);
      for (const title of CONTENT.tabs) await tabs.getByRole('tab', { name: title }).waitFor(visible);
      await tabs.getByRole('tab', { name: CONTENT.tabs[1] }).click();
      await page.getByRole('tabpanel').filter({ hasText: 'apt-get install zebrafish' }).first().waitFor(visible);
      return `tabs ${CONTENT.tabs.join(', ')}; switching shows the other panel`;
    },
    INSTALL,
  );
  await check(results, CONFIGURE, page, () => load('guides/configure'));
  await check(
    results,
    'table',
    page,
    async () => {
      const table = page.locator('table, [role="table"]').first();
      await table.waitFor(visible);
      const text = await table.innerText();
      const missing = CONTENT.table.filter((cell) => !text.includes(cell));
      if (missing.length) throw new Error(`table lacks ${missing.join(', ')}`);
      return 'header and rows shown';
    },
    CONFIGURE,
  );
  await check(
    results,
    'image loads',
    page,
    async () => {
      const image = page.locator('img[alt="The architecture"]').first();
      await image.waitFor(visible);
      await image.scrollIntoViewIfNeeded();
      const src = await image.getAttribute('src');
      const loaded = await waitFor(
        `image ${src}`,
        async () => {
          const size = await image.evaluate((img: { complete: boolean; naturalWidth: number }) => (img.complete ? img.naturalWidth : 0));
          return size > 0 ? size : undefined;
        },
        30_000,
      );
      return `decoded, ${loaded} px wide (${src})`;
    },
    CONFIGURE,
  );
  const DIAGRAM = 'page with an integration block loads';
  await check(results, DIAGRAM, page, () => load('guides/diagram'));
  await check(
    results,
    "integration block (GitBook's Mermaid)",
    page,
    async () => {
      // The block is a webframe on the Mermaid integration's public endpoint, served by this service
      // (the page in it loads Mermaid's library from a CDN to draw the diagram: not checked here).
      const iframe = page.locator(`iframe[src*="/v1/integrations/${mermaid}/integration"]`).first();
      await iframe.waitFor({ state: 'attached', timeout: 60_000 });
      const src = (await iframe.getAttribute('src'))!;
      const frame = await waitFor(
        `the webframe ${src}`,
        async () => {
          const found = page.frames().find((f) => f.url().includes(`/v1/integrations/${mermaid}/integration`));
          const html = found ? await found.content().catch(() => '') : '';
          return html.includes('mermaid.initialize') ? found : undefined;
        },
        30_000,
      );
      const answered = await fetch(src);
      if (answered.headers.get('content-security-policy') !== 'sandbox allow-scripts') {
        throw new Error(`the webframe was served without its sandbox: ${answered.headers.get('content-security-policy')}`);
      }
      return `rendered by the integration through renderIntegrationUi; its webframe ${new URL(frame.url()).pathname} is Mermaid's page`;
    },
    DIAGRAM,
  );
  await check(
    results,
    'search',
    page,
    async () => {
      await load('');
      // A wide window shows the search field itself; a narrow one a button that opens it.
      const input = page.getByTestId('search-input').first();
      if (!(await input.isVisible())) await page.getByTestId('search-button').first().click(visible);
      await input.click(visible);
      await input.fill(CONTENT.searchTerm);
      // The development server compiles the renderer's search route on this first search: a minute
      // or more on a busy 2-core machine.
      await page.getByTestId('search-page-result').filter({ hasText: 'Install' }).first().waitFor({ timeout: 180_000 });
      return `"${CONTENT.searchTerm}" finds the Install page`;
    },
    HOME,
  );
  await page.close();
  return results;
}

/**
 * What the renderer offers readers besides pages (llms.txt, each page as markdown, the sitemap, the
 * MCP endpoint, the printable site), and what site owners need of it: a change request previewed
 * before it is merged, and a share-link site read by following its links.
 */
async function runOwnerChecks(browser: Browser, base: string, owner: OwnerContent): Promise<Check[]> {
  const results: Check[] = [];
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const url = (path: string, host = HOSTNAME) => `${base}/url/${host}/${path}`;
  const visible = { timeout: 20_000 };
  const text = async (path: string, init?: RequestInit) => {
    const res = await fetch(url(path), { ...init, signal: AbortSignal.timeout(600_000) });
    const body = await res.text();
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${body.slice(0, 200)}`);
    return body;
  };
  const contains = (body: string, what: string[], where: string) => {
    const missing = what.filter((w) => !body.includes(w));
    if (missing.length) throw new Error(`${where} lacks ${missing.map((m) => `"${m}"`).join(', ')}: ${body.slice(0, 200)}`);
  };

  await check(results, 'llms.txt', page, async () => {
    const body = await text('llms.txt');
    contains(body, ['Welcome', 'Install', 'Configure', 'Reference'], 'llms.txt');
    return `${body.split('\n').length} lines listing every page`;
  });
  await check(results, 'llms-full.txt', page, async () => {
    const body = await text('llms-full.txt');
    contains(body, ['Every command and option, listed.', 'Step-by-step guides'], 'llms-full.txt');
    return `${body.length} characters of every page's markdown`;
  });
  await check(results, 'page as markdown', page, async () => {
    const body = await text('reference.md');
    contains(body, ['Every command and option, listed.', 'llms.txt'], 'reference.md');
    if (/<html|<body/i.test(body)) throw new Error(`reference.md is HTML: ${body.slice(0, 200)}`);
    return 'reference.md is the page in markdown, with the pointer to llms.txt';
  });
  await check(results, 'sitemap.xml and robots.txt', page, async () => {
    const sitemap = await text('sitemap.xml');
    contains(sitemap, ['<sitemapindex', 'sitemap-pages.xml'], 'sitemap.xml');
    const pages = await text('sitemap-pages.xml');
    contains(pages, ['guides/install', 'reference'], 'sitemap-pages.xml');
    contains(await text('robots.txt'), ['Sitemap:'], 'robots.txt');
    return 'the sitemap lists the pages, robots.txt points at it';
  });
  await check(results, 'MCP endpoint', page, async () => {
    // Streamable HTTP: each JSON-RPC message answered as JSON or as a server-sent event.
    const rpc = async (id: number, method: string, params: object) => {
      const body = await text('~gitbook/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      const json = body.trim().startsWith('{') ? body : (body.split('\n').find((line) => line.startsWith('data:')) ?? '').slice(5);
      return JSON.parse(json) as { result?: { tools?: { name: string }[] }; error?: unknown };
    };
    const init = await rpc(1, 'initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'reader-e2e', version: '1' },
    });
    if (!init.result) throw new Error(`initialize: ${JSON.stringify(init)}`);
    const tools = (await rpc(2, 'tools/list', {})).result?.tools ?? [];
    if (tools.length === 0) throw new Error('tools/list answered no tool');
    const search = tools.find((t) => /search/i.test(t.name));
    if (!search) throw new Error(`no search tool among ${tools.map((t) => t.name).join(', ')}`);
    const found = await rpc(3, 'tools/call', { name: search.name, arguments: { query: CONTENT.searchTerm } });
    const out = JSON.stringify(found.result ?? found.error);
    if (!out.includes('Install')) throw new Error(`${search.name} "${CONTENT.searchTerm}" answered ${out.slice(0, 300)}`);
    return `${tools.length} tools (${tools.map((t) => t.name).join(', ')}); ${search.name} finds the Install page`;
  });
  await check(results, 'printable site', page, async () => {
    const res = await page.goto(url('~gitbook/pdf?limit=100'), { timeout: 600_000, waitUntil: 'load' });
    if (!res || res.status() >= 400) throw new Error(`~gitbook/pdf answered ${res?.status()}`);
    const body = await page.locator('body').innerText({ timeout: 60_000 });
    contains(body, ['Welcome', 'Install', 'Configure', 'Every command and option, listed.'], 'the printable site');
    return 'every page on one printable page';
  });
  await check(results, 'change-request preview', page, async () => {
    const target = `${base}/url/${owner.preview.host}${owner.preview.pathname}${owner.preview.search}`;
    const res = await page.goto(target, { timeout: 600_000, waitUntil: 'load' });
    if (!res || res.status() >= 400) throw new Error(`the preview answered ${res?.status()}`);
    const heading = (await page.locator('h1').first().innerText(visible)).trim();
    if (heading !== CONTENT.previewTitle) throw new Error(`heading "${heading}"`);
    await page.getByText(CONTENT.previewText).first().waitFor(visible);
    // Not on the published site.
    const published = await fetch(url('upgrade-notes'), { signal: AbortSignal.timeout(600_000) });
    const live = published.ok ? await published.text() : '';
    if (live.includes(CONTENT.previewText)) throw new Error('the published site shows the unmerged page');
    return `"${heading}" previewed from the change request, ${published.status} on the published site`;
  });
  await check(results, 'share-link reader follows links', page, async () => {
    const res = await page.goto(url(`${owner.shareKey}/`, SHARE_HOSTNAME), { timeout: 600_000, waitUntil: 'load' });
    if (!res || res.status() >= 400) throw new Error(`the share link answered ${res?.status()}`);
    await page.locator('h1').first().waitFor(visible);
    await page.getByTestId('table-of-contents').getByRole('link', { name: 'Reference' }).first().click(visible);
    await page.waitForURL((u) => u.pathname.endsWith('/reference'), { timeout: 600_000 });
    const heading = (await page.locator('h1').first().innerText(visible)).trim();
    if (heading !== 'Reference') throw new Error(`heading "${heading}" at ${page.url()}`);
    if (!page.url().includes(`/${owner.shareKey}/`)) throw new Error(`the link left the share link: ${page.url()}`);
    const without = await fetch(url('', SHARE_HOSTNAME), { signal: AbortSignal.timeout(600_000) });
    if (without.ok) throw new Error(`the share-link site answered ${without.status} without its key`);
    return `Reference reached at ${new URL(page.url()).pathname}; ${without.status} without the key`;
  });
  await page.close();
  return results;
}

/**
 * The production build: pages read in the browser are tracked, and the events reach this service
 * (`trackEventsInSiteById`, from the renderer's server with its site lookup token), where the
 * site's owner sees them through `aggregateSiteEvents`.
 */
async function runProductionChecks(browser: Browser, base: string, service: Service, published: { siteId: string }): Promise<Check[]> {
  const results: Check[] = [];
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const url = (path: string) => `${base}/url/${HOSTNAME}/${path}`;
  const PRODUCTION_HOME = 'production build: pages load';
  await check(results, PRODUCTION_HOME, page, async () => {
    for (const path of ['', 'guides/install', 'reference']) {
      const res = await page.goto(url(path), { timeout: 600_000, waitUntil: 'load' });
      if (!res || res.status() >= 400) throw new Error(`${url(path)} answered ${res?.status()}`);
      await page.locator('h1').first().waitFor({ timeout: 60_000 });
      // The page view is sent from the browser once the page is shown.
      await page.waitForTimeout(1000);
    }
    return 'home, install and reference pages';
  });
  await check(
    results,
    'production build: insights events reach the service',
    page,
    async () => {
      const counts = await waitFor(
        'page views in the site insights',
        async () => {
          const answer = await api(
            service,
            'POST',
            `/v1/orgs/${service.organizationId}/sites/${published.siteId}/insights/events/aggregate`,
            {
              select: [{ column: 'eventType' }, { column: 'eventsCount' }],
              groupBy: [{ column: 'eventType' }],
              range: 'last24Hours',
            },
          );
          const columns = answer.columns as { column: string; values: unknown[] }[];
          const types = columns.find((c) => c.column === 'eventType')?.values ?? [];
          const counts = columns.find((c) => c.column === 'eventsCount')?.values ?? [];
          const byType = Object.fromEntries(types.map((type, i) => [String(type), Number(counts[i])]));
          return (byType.page_view ?? 0) >= 3 ? byType : undefined;
        },
        120_000,
      );
      const posted = service.log.filter(
        (e) => e.method === 'POST' && e.path.includes('/insights/events') && !e.path.endsWith('/aggregate'),
      );
      const refused = posted.filter((e) => e.status >= 300);
      if (refused.length) throw new Error(`${refused.length} of ${posted.length} event batches refused: ${refused[0].responseBody}`);
      return `${Object.entries(counts)
        .map(([type, n]) => `${type} ×${n}`)
        .join(', ')} in ${posted.length} batches from the renderer`;
    },
    PRODUCTION_HOME,
  );
  await page.close();
  return results;
}

// ---------------------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------------------

/** A path with its ids replaced, so calls group by operation. */
function operationOf(entry: Recorded): string {
  const path = entry.path.split('?')[0].replace(/\/[A-Za-z0-9_-]{16,}(?=\/|$)/g, '/{id}');
  return `${entry.method} ${path}`;
}

function printRequests(log: Recorded[]) {
  const fromRenderer = log.filter((e) => e.from !== 'browser' || e.path.startsWith('/v1'));
  say('');
  say(`API calls in order (${log.length} requests; full bodies in ${join(RUN_DIR, 'requests.json')}):`);
  for (const e of log) {
    const error = e.status >= 400 ? `  ${(e.responseBody ?? '').replace(/\s+/g, ' ').slice(0, 200)}` : '';
    say(`  #${e.seq} ${e.from}/${e.auth}  ${e.method} ${e.path.slice(0, 160)} -> ${e.status}${error}`);
  }
  const groups = new Map<string, Map<number, number>>();
  for (const e of fromRenderer) {
    const key = operationOf(e);
    const statuses = groups.get(key) ?? new Map<number, number>();
    statuses.set(e.status, (statuses.get(e.status) ?? 0) + 1);
    groups.set(key, statuses);
  }
  say('');
  say('By operation:');
  for (const [key, statuses] of groups) {
    say(`  ${key}  ${[...statuses].map(([status, count]) => `${status}×${count}`).join(' ')}`);
  }
}

/** The renderer's own errors (its server log), each once. */
function printRendererErrors(logFile: string) {
  if (!existsSync(logFile)) return;
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => /Error\b|error:/.test(line))
    .map((line) => line.trim());
  const unique = [...new Set(lines)].slice(0, 15);
  if (!unique.length) return;
  say('');
  say(`The renderer's errors (${logFile}):`);
  for (const line of unique) say(`  ${line.slice(0, 300)}`);
}

async function main() {
  mkdirSync(RUN_DIR, { recursive: true });
  say(`run directory ${RUN_DIR}`);
  const app = prepareRenderer();
  const chromiumPath = ensureChromium();
  const service = await startService();
  const published = await publishContent(service);
  const mermaid = await installMermaid(service, published.spaceId);
  const owner = await prepareOwnerContent(service, published);
  const renderer = await startRenderer(app, service, 'development');
  const base = renderer.base;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  closers.push(() => browser.close());
  const results = [...(await runChecks(browser, base, mermaid)), ...(await runOwnerChecks(browser, base, owner))];
  if (PRODUCTION) {
    await renderer.stop();
    const production = await startRenderer(app, service, 'production');
    results.push(...(await runProductionChecks(browser, production.base, service, published)));
  }
  writeFileSync(join(RUN_DIR, 'requests.json'), JSON.stringify(service.log, null, 2));
  writeFileSync(join(RUN_DIR, 'checks.json'), JSON.stringify(results, null, 2));
  printRequests(service.log);
  for (const mode of ['development', 'production']) printRendererErrors(join(RUN_DIR, `renderer-${mode}.log`));
  const failed = results.filter((r) => !r.ok);
  say('');
  for (const r of results) say(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name}`);
  say(failed.length ? `${failed.length} of ${results.length} checks failed` : `all ${results.length} checks passed`);
  if (process.env.READER_KEEP === '1') {
    say(`READER_KEEP=1: the site is at ${base}/url/${HOSTNAME}/ and the API at ${service.proxyUrl}/v1; Ctrl-C stops everything`);
    await interrupted;
  }
  return failed.length ? 1 : 0;
}

/** Ctrl-C: with READER_KEEP=1 the end of the wait; otherwise the end of the run, processes stopped. */
const interrupted = new Promise<void>((done) =>
  process.once('SIGINT', () => {
    if (process.env.READER_KEEP === '1') return done();
    void stopAll().then(() => process.exit(130));
  }),
);
process.once('SIGTERM', () => void stopAll().then(() => process.exit(143)));
let code = 1;
try {
  code = await main();
} catch (error) {
  say(`FAIL  ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await stopAll();
  // The run's database and Temporal state are of no use afterwards; its logs and screenshots stay.
  // A stopped server may still be removing its own files: retried, and never what decides the run.
  try {
    rmSync(DATA_DIR, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (error) {
    say(`could not remove ${DATA_DIR}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.exit(code);
