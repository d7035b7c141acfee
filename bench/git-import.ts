/**
 * `node bench/git-import.ts [--pages 2000 --assets 200]`: Git import of a generated GitBook repository
 * (nested folders, SUMMARY.md, links between pages, GitBook blocks, image assets) served over
 * smart HTTP by `git http-backend`, against a baseline measured in the same run on the same
 * repository: `git clone --depth 1` plus reading and parsing every markdown file with the same
 * markdown parser. The import is the real activity (fetch into a fresh cache, read the layout,
 * stream assets to a blob store, write one revision and its search index in PostgreSQL), called
 * in-process so the figure does not include Temporal's scheduling.
 *
 * Needs DATABASE_URL (a scratch database is created and dropped). Prints the ratio (target ≤ 3×);
 * the exit code is 0 unless the run itself fails.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '../src/lib/infra.ts';
import { initOrm, migrate } from '../src/db/orm.ts';
import { createOrganization } from '../src/db/accounts.ts';
import { createSpace } from '../src/api/spaces/service.ts';
import { insertGitSyncRequest, requestSecretContext } from '../src/db/git-sync.ts';
import { gitSyncActivities } from '../src/activities/git-sync.ts';
import { LocalBlobStore } from '../src/lib/blob-store.ts';
import { secretBox } from '../src/lib/secrets.ts';
import { parseMarkdown } from '../src/domain/content/markdown.ts';
import { startGitServer } from '../test/support/git-server.ts';

const TARGET = 3;
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
  const m = /^--([a-z]+)(?:=(.*))?$/.exec(process.argv[i]);
  if (!m) throw new Error(`unknown argument ${process.argv[i]} (flags: --pages, --assets)`);
  args.set(m[1], m[2] ?? process.argv[++i]);
}
const PAGES = Number(args.get('pages') ?? process.env.BENCH_GIT_PAGES ?? 2000);
const ASSETS = Number(args.get('assets') ?? process.env.BENCH_GIT_ASSETS ?? Math.round(PAGES / 10));
if (!(PAGES >= 10 && PAGES <= 20_000) || !(ASSETS >= 0 && ASSETS <= 5000)) throw new Error('pages must be 10..20000 and assets 0..5000');
if (!process.env.DATABASE_URL) throw new Error('Set DATABASE_URL (a PostgreSQL server where a scratch database can be created)');

/** A GitBook repository: sections of pages, each page linking to its neighbours and an image. */
function generate(pages: number, assets: number): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {};
  const perSection = 50;
  const sections = Math.ceil((pages - 1) / perSection);
  const summary = ['# Table of contents', '', '* [Introduction](README.md)'];
  files['README.md'] = '# Introduction\n\nGenerated documentation.\n';
  for (let a = 0; a < assets; a++) files[`.gitbook/assets/image ${a}.png`] = randomBytes(2048 + (a % 7) * 512);
  let made = 1;
  for (let s = 0; s < sections && made < pages; s++) {
    summary.push(`* [Section ${s}](section-${s}/README.md)`);
    files[`section-${s}/README.md`] = `# Section ${s}\n\n{% hint style="info" %}\nPages of section ${s}.\n{% endhint %}\n`;
    made++;
    for (let p = 0; p < perSection - 1 && made < pages; p++, made++) {
      summary.push(`  * [Page ${s}.${p}](section-${s}/page-${p}.md)`);
      const image = assets > 0 ? `\n![figure](../.gitbook/assets/image%20${(s * perSection + p) % assets}.png)\n` : '';
      files[`section-${s}/page-${p}.md`] = [
        '---',
        `description: Page ${p} of section ${s}`,
        '---',
        '',
        `# Page ${s}.${p}`,
        '',
        `This is page ${p} of section ${s}. It links to [the next page](page-${p + 1}.md) and [the section](README.md).`,
        '',
        '## Details',
        '',
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.'.repeat(3),
        '',
        '```js',
        `console.log(${p});`,
        '```',
        image,
      ].join('\n');
    }
  }
  files['SUMMARY.md'] = `${summary.join('\n')}\n`;
  return files;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === '.git') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

const cleanups: (() => Promise<unknown> | unknown)[] = [];
try {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-git-'));
  cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
  const db = await createScratchDatabase(process.env.DATABASE_URL, `docs_bench_git_${Date.now().toString(36)}`);
  cleanups.push(() => db.stop());
  const orm = await initOrm({ databaseUrl: db.url, poolMax: 4 });
  cleanups.push(() => orm.close());
  await migrate(orm);

  const server = await startGitServer();
  cleanups.push(() => server.close());
  const files = generate(PAGES, ASSETS);
  console.log(`generating a repository of ${PAGES} pages and ${ASSETS} assets…`);
  server.commit('docs', files, { message: 'Generated docs' });

  // Baseline: clone + read + parse every markdown file.
  const t0 = performance.now();
  const clone = join(scratch, 'clone');
  // Asynchronous: the repository server runs in this process.
  await promisify(execFile)('git', ['clone', '--quiet', '--depth', '1', server.url('docs'), clone], {
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
  });
  let parsed = 0;
  for (const path of walk(clone)) {
    if (!path.endsWith('.md')) continue;
    parseMarkdown(readFileSync(path, 'utf8'));
    parsed++;
  }
  const baselineMs = performance.now() - t0;

  // The import, as the worker runs it.
  const key = randomBytes(32);
  const box = secretBox(key);
  const activities = gitSyncActivities(orm, {
    blobs: new LocalBlobStore(join(scratch, 'blobs')),
    cacheDir: join(scratch, 'cache'),
    maxFileBytes: 100 * 1024 * 1024,
    timeoutMs: 600_000,
    policy: { allowPrivate: false, allowHosts: ['127.0.0.1'], timeoutMs: 60_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 0 },
    secrets: async () => box,
  });
  const em = orm.em.fork();
  const org = await createOrganization(em, 'Bench');
  const space = await em.transactional((tx) =>
    createSpace(tx, {
      organizationId: org.id,
      parentId: null,
      title: 'Bench',
      emoji: '',
      visibility: 'private',
      editMode: 'live',
      defaultLevel: null,
    }),
  );
  const requestId = 'bench-import';
  await insertGitSyncRequest(orm.em.fork(), {
    id: requestId,
    spaceId: space.id,
    kind: 'import',
    requestedAt: new Date(),
    requestedBy: null,
    params: { url: server.url('docs', false), ref: 'refs/heads/main' },
    credentials: box.seal(JSON.stringify({ username: 'git-user', password: 's3cret-pass' }), requestSecretContext(requestId)),
  });
  const t1 = performance.now();
  const outcome = await activities.runGitSyncRequest(requestId);
  const importMs = performance.now() - t1;
  if (outcome.state !== 'applied') throw new Error(`the import did not apply: ${JSON.stringify(outcome)}`);

  const ratio = importMs / baselineMs;
  console.log(`baseline (git clone --depth 1 + parse ${parsed} markdown files): ${baselineMs.toFixed(0)} ms`);
  console.log(`git import (fetch, layout, ${ASSETS} assets to the blob store, one revision + search index): ${importMs.toFixed(0)} ms`);
  console.log(`ratio: ${ratio.toFixed(2)}× (target ≤ ${TARGET}×) ${ratio <= TARGET ? 'OK' : 'ABOVE TARGET'}`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  for (const step of cleanups.reverse()) {
    try {
      await step();
    } catch (error) {
      console.error('cleanup:', (error as Error).message);
    }
  }
}
