/**
 * Git Sync, three rows.
 *
 * - Import of a generated GitBook repository (nested folders, SUMMARY.md, links between pages,
 *   GitBook blocks, 200 small image assets) served over smart HTTP by `git http-backend`, against
 *   `git clone --depth 1` plus reading and parsing every markdown file of the same repository with
 *   the same parser, in the same round. The import is the real pair of activities (the stage:
 *   fetch into a fresh cache, read the layout, stream assets to a fresh blob store; then the apply:
 *   write one revision; the search index follows in a job of its own, not measured), called
 *   in-process so the figure does not include Temporal's scheduling.
 * - The same import of a repository laid out like real ones, with their assets' sizes
 *   (generateHeavyRepository: 200 screenshots and GIFs of 100 KB to 2 MB of random bytes, 65 MB, a
 *   third of them shown by no page, SVG icons, names with spaces, parentheses and `@`, 200 pages in
 *   nested folders showing them), against `git clone --depth 1` of it alone.
 *   Rounds alternate baseline and import, so load drifts hit both.
 * - The answer of `POST …/git/import` (the request row; the signal-with-start of the space's sync
 *   workflow follows the answer), p95 over sequential calls, against a bare Temporal workflow start
 *   from this process (same server, a task queue no worker polls; the runs are terminated
 *   afterwards). The note gives how long after its row each request reached its workflow.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { sql } from 'kysely';
import { insertGitSyncRequest, requestSecretContext } from '../../src/db/git-sync.ts';
import { db } from '../../src/db/kysely.ts';
import { forkEm } from '../../src/db/orm.ts';
import { gitSyncActivities } from '../../src/activities/git-sync.ts';
import { LocalBlobStore } from '../../src/lib/blob-store.ts';
import { secretBox } from '../../src/lib/secrets.ts';
import { parseMarkdown } from '../../src/domain/content/markdown.ts';
import { startGitServer, type GitServer } from '../../test/support/git-server.ts';
import { median, percentile } from '../lib.ts';
import type { RunOptions, Row } from '../load.ts';
import { waitForIdleJobs, type Stack } from '../stack.ts';

/** A GitBook repository: sections of 50 pages, each page linking to its neighbours and an image. */
export function generateRepository(pages: number, assets: number): Record<string, string | Buffer> {
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

async function withGitServer<T>(run: (server: GitServer, scratch: string) => Promise<T>): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-git-'));
  const server = await startGitServer();
  try {
    return await run(server, scratch);
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A deterministic sequence of numbers in [0, 1) (sizes and names of the heavy repository do not change between runs). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** An image of `size` bytes whose header gives its dimensions and whose body is random (as incompressible as real PNG or GIF data). */
function fakeImage(kind: 'png' | 'gif', size: number, width: number, height: number): Buffer {
  const bytes = randomBytes(size);
  if (kind === 'gif') {
    bytes.write('GIF89a', 0, 'latin1');
    bytes.writeUInt16LE(width, 6);
    bytes.writeUInt16LE(height, 8);
  } else {
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(bytes, 0);
    bytes.write('IHDR', 12, 'latin1');
    bytes.writeUInt32BE(width, 16);
    bytes.writeUInt32BE(height, 20);
  }
  return bytes;
}

/** A small SVG icon, as the icons GitBook's documentation shows beside its menu names. */
const svgIcon = (name: string, dark: boolean) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><title>${name}</title>` +
  `<path d="M2 3h12v2H2zm0 4h12v2H2zm0 4h12v2H2z" fill="${dark ? '#e8e8e8' : '#1f1f1f'}"/></svg>\n`;

/**
 * A GitBook repository laid out like GitBook's own documentation (test/fixtures/repos/
 * gitbook-documentation) and Fluent Bit's (test/fixtures/repos/fluent-bit-docs), with the sizes
 * their large files have (the fixtures replaced those by small ones):
 * - `assets` screenshots and GIFs in `.gitbook/assets/`, 100 KB to 2 MB of random bytes behind real
 *   PNG and GIF headers (one in four a GIF of 300 KB to 2 MB, the others PNGs of 100 to 400 KB, most
 *   near 100 KB), named as GitBook names them (`25_12_10_git_sync@2x (3).png`, `Screen Shot
 *   2024-12-13 at 3.38.30 PM (5).png`, `image (12).png`, `demo (7).gif`: spaces, parentheses, `@`);
 *   one in three is shown by no page (the assets folder of a real repository keeps old ones);
 * - beside them, light and dark SVG icons of a few hundred bytes (one pair per ten assets);
 * - `pages` pages in sections of 20, each section a folder with a README and groups of five pages in
 *   subfolders (pages three and four folders deep); a page shows one screenshot as a GitBook figure
 *   (`<figure><img src="../../.gitbook/assets/name with spaces.png" …>`, the name not escaped, as
 *   GitBook writes it), every other one a second as markdown (`![…](<…>)`) and every third one an
 *   icon pair (`<picture><source srcset=…>`).
 */
export function generateHeavyRepository(pages: number, assets: number): { files: Record<string, string | Buffer>; bytes: number } {
  const random = seeded(17);
  const files: Record<string, string | Buffer> = {};
  const shown: string[] = [];
  let bytes = 0;
  for (let a = 0; a < assets; a++) {
    const gif = a % 4 === 3;
    const u = random();
    const size = Math.round(gif ? 300_000 * (2_000_000 / 300_000) ** u : 100_000 * 4 ** (u * u));
    const day = String(1 + (a % 28)).padStart(2, '0');
    const name = gif
      ? `demo (${a}).gif`
      : a % 3 === 0
        ? `Screen Shot 2024-03-${day} at ${1 + (a % 12)}.${String(a % 60).padStart(2, '0')}.32 PM (${a}).png`
        : a % 3 === 1
          ? `25_${String(1 + (a % 12)).padStart(2, '0')}_${day}_${['git_sync', 'insights', 'site_structure', 'editor'][a % 4]}@2x (${a}).png`
          : `image (${a}).png`;
    if (a % 3 !== 2) shown.push(name);
    files[`.gitbook/assets/${name}`] = fakeImage(gif ? 'gif' : 'png', size, 640 + (a % 5) * 320, 360 + (a % 4) * 180);
    bytes += size;
  }
  const icons: string[] = [];
  for (let i = 0; i < Math.ceil(assets / 10); i++) {
    const name = `25_01_10_${['actions', 'history', 'settings', 'search'][i % 4]}_icon_${i}`;
    icons.push(name);
    for (const dark of [false, true]) {
      const icon = svgIcon(name, dark);
      files[`.gitbook/assets/${name}_${dark ? 'dark' : 'light'} (1).svg`] = icon;
      bytes += icon.length;
    }
  }
  const perSection = 20;
  const perGroup = 5;
  const summary = ['# Table of contents', '', '* [Introduction](README.md)'];
  files['README.md'] = '# Introduction\n\nA product guide with screenshots.\n';
  let made = 1;
  for (let s = 0; made < pages; s++) {
    summary.push('', `## Part ${s}`, '', `* [Section ${s}](section-${s}/README.md)`);
    files[`section-${s}/README.md`] = `# Section ${s}\n\nWhat section ${s} covers.\n`;
    made++;
    for (let p = 0; p < perSection - 1 && made < pages; p++, made++) {
      const group = Math.floor(p / perGroup);
      const up = '../'.repeat(group === 0 ? 1 : 2);
      const folder = group === 0 ? `section-${s}` : `section-${s}/group-${group}`;
      summary.push(`${group === 0 ? '  ' : '    '}* [Page ${s}.${p}](${folder}/page-${p}.md)`);
      if (group > 0 && p % perGroup === 0) {
        // The group's own page, counted among the pages.
        summary.splice(summary.length - 1, 0, `  * [Group ${s}.${group}](${folder}/README.md)`);
        files[`${folder}/README.md`] = `# Group ${s}.${group}\n\nThe steps of part ${group}.\n`;
        made++;
      }
      const first = shown.length > 0 ? shown[made % shown.length] : null;
      const second = shown.length > 0 ? shown[(made * 7 + 3) % shown.length] : null;
      const icon = icons.length > 0 ? icons[made % icons.length] : null;
      const menu = icon
        ? ` <picture><source srcset="${up}.gitbook/assets/${icon}_dark (1).svg" media="(prefers-color-scheme: dark)">` +
          `<img src="${up}.gitbook/assets/${icon}_light (1).svg" alt=""></picture>`
        : '';
      files[`${folder}/page-${p}.md`] = [
        `# Page ${s}.${p}`,
        '',
        `Step ${p} of section ${s}: open the **Actions menu**${p % 3 === 0 ? menu : ''} and follow [the next page](page-${p + 1}.md).`,
        '',
        ...(first
          ? [
              `<figure><img src="${up}.gitbook/assets/${first}" alt="A screenshot of step ${p}"><figcaption><p>Step ${p}</p></figcaption></figure>`,
              '',
            ]
          : []),
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.'.repeat(2),
        '',
        ...(second && p % 2 === 0 ? [`![The result](<${up}.gitbook/assets/${second}>)`, ''] : []),
      ].join('\n');
    }
  }
  files['SUMMARY.md'] = `${summary.join('\n')}\n`;
  return { files, bytes };
}

/**
 * Rounds of the import against a baseline of the same repository, alternating (baseline, then
 * import) so the machine's load drifts hit both: the milliseconds of each.
 */
async function importRounds(
  stack: Stack,
  options: RunOptions,
  server: GitServer,
  scratch: string,
  repository: string,
  baseline: (clone: string) => void,
  log: (line: string) => void,
): Promise<{ imports: number[]; baselines: number[] }> {
  const box = secretBox(randomBytes(32));
  const imports: number[] = [];
  const baselines: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    // Baseline: the clone (asynchronous: the server runs in this process), then what `baseline` adds.
    const clone = join(scratch, `clone-${repository}-${round}`);
    let t = performance.now();
    await promisify(execFile)('git', ['clone', '--quiet', '--depth', '1', server.url(repository), clone], {
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    });
    baseline(clone);
    baselines.push(performance.now() - t);
    rmSync(clone, { recursive: true, force: true });

    // The import, as the worker runs it, into a fresh space with a fresh repository cache and blob store.
    const activities = gitSyncActivities(stack.orm, {
      blobs: new LocalBlobStore(join(scratch, `blobs-${repository}-${round}`)),
      cacheDir: join(scratch, `cache-${repository}-${round}`),
      maxFileBytes: 100 * 1024 * 1024,
      markdown: { maxFiles: 10_000, maxFileBytes: 5 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 },
      timeoutMs: 600_000,
      policy: { allowPrivate: false, allowHosts: ['127.0.0.1'], timeoutMs: 60_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 0 },
      secrets: async () => box,
    });
    const space = await stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: `Git bench ${repository} ${round}` });
    const requestId = `bench-import-${repository}-${stack.runId}-${round}`;
    await insertGitSyncRequest(stack.orm.em.fork(), {
      id: requestId,
      spaceId: space.id,
      kind: 'import',
      requestedAt: new Date(),
      requestedBy: null,
      params: { url: server.url(repository, false), ref: 'refs/heads/main' },
      credentials: box.seal(JSON.stringify({ username: 'git-user', password: 's3cret-pass' }), requestSecretContext(requestId)),
    });
    // The two activities the workflow runs: the stage, then the apply of its bundle.
    t = performance.now();
    const staged = await activities.runGitSyncRequest(requestId, { stageOnly: true });
    if (staged.state !== 'staged') throw new Error(`the import was not staged: ${JSON.stringify(staged)}`);
    const stageMs = performance.now() - t;
    const outcome = await activities.applyGitSyncImport({ requestId, bundle: staged.bundle });
    imports.push(performance.now() - t);
    if (outcome.state !== 'applied') throw new Error(`the import did not apply: ${JSON.stringify(outcome)}`);
    rmSync(join(scratch, `blobs-${repository}-${round}`), { recursive: true, force: true });
    rmSync(join(scratch, `cache-${repository}-${round}`), { recursive: true, force: true });
    log(
      `git-import: ${repository} round ${round + 1}: import ${imports[round].toFixed(0)} ms ` +
        `(stage ${stageMs.toFixed(0)}, apply ${(imports[round] - stageMs).toFixed(0)}), baseline ${baselines[round].toFixed(0)} ms`,
    );
  }
  return { imports, baselines };
}

export async function measureGitImport(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const pages = options.gitPages;
  const assets = Math.round(pages / 10);
  const heavyAssets = options.quick ? 40 : 200;
  const heavyPages = options.quick ? 40 : 200;
  return withGitServer(async (server, scratch) => {
    server.commit('docs', generateRepository(pages, assets), { message: 'Generated docs' });
    const heavy = generateHeavyRepository(heavyPages, heavyAssets);
    server.commit('heavy', heavy.files, { message: 'Generated docs with heavy assets' });
    const parseEvery = (clone: string) => {
      for (const path of walk(clone)) if (path.endsWith('.md')) parseMarkdown(readFileSync(path, 'utf8'));
    };
    const docs = await importRounds(stack, options, server, scratch, 'docs', parseEvery, log);
    const assetRounds = await importRounds(stack, options, server, scratch, 'heavy', () => undefined, log);
    const row = (
      measure: string,
      baseline: string,
      limit: number,
      { imports, baselines }: { imports: number[]; baselines: number[] },
    ): Row => {
      const value = median(imports);
      const base = median(baselines);
      return {
        measure,
        value: value / 1000,
        unit: 's',
        baseline,
        baselineValue: base / 1000,
        ratio: value / base,
        target: `ratio ≤ ${limit}`,
        met: value / base <= limit,
        perRound: imports.map((ms, i) => ms / baselines[i]),
      };
    };
    return [
      row(
        `git import of a ${pages.toLocaleString('en')}-page repository (${assets} assets)`,
        'git clone --depth 1 + parse every markdown file',
        1.5,
        docs,
      ),
      row(
        `git import of a ${heavyPages}-page repository with ${heavyAssets} heavy assets (${(heavy.bytes / 1e6).toFixed(0)} MB)`,
        'git clone --depth 1',
        3,
        assetRounds,
      ),
    ];
  });
}

export async function measureGitImportAnswer(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const calls = options.quick ? 40 : 200;
  return withGitServer(async (server) => {
    server.commit('small', { 'README.md': '# Small\n\nOne page.\n' });
    const spaces: string[] = [];
    for (let i = 0; i < 16; i++) spaces.push((await stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: `Answer ${i}` })).id);
    const connection = await Connection.connect({ address: stack.temporalAddress });
    const client = new Client({ connection, namespace: 'default' });
    const queue = `bench-nobody-${stack.runId}`;
    const started: string[] = [];
    try {
      const answer: number[] = [];
      const bare: number[] = [];
      const importOnce = async (i: number) => {
        const t = performance.now();
        await stack.call('POST', `/v1/spaces/${spaces[i % spaces.length]}/git/import`, {
          url: server.url('small'),
          ref: 'refs/heads/main',
          timestamp: new Date().toISOString(),
        });
        return performance.now() - t;
      };
      const startOnce = async (i: number) => {
        const workflowId = `bench-bare-${stack.runId}-${i}`;
        const t = performance.now();
        await client.workflow.start('benchBareStart', { taskQueue: queue, workflowId, args: [{ requestId: workflowId }] });
        const ms = performance.now() - t;
        started.push(workflowId);
        return ms;
      };
      // Warm both paths, then alternate so load drifts hit both equally.
      await importOnce(spaces.length - 1);
      await startOnce(-1);
      for (let i = 0; i < calls; i++) {
        answer.push(await importOnce(i));
        bare.push(await startOnce(i));
      }
      // The imports behind the answers run afterwards: they finish while the repository is still served.
      log(`git-import-answer: the imports requested: ${await waitForIdleJobs(stack)}`);
      const handed = Float64Array.from(
        (
          await db(forkEm(stack.orm))
            .selectFrom('git_sync_request')
            .select(sql<string>`extract(epoch from signalled_at - created_at) * 1000`.as('ms'))
            .where('space_id', 'in', spaces)
            .where('signalled_at', 'is not', null)
            .execute()
        ).map((row) => Number(row.ms)),
      ).sort();
      const p95 = percentile(Float64Array.from(answer).sort(), 95);
      const base = percentile(Float64Array.from(bare).sort(), 95);
      log(`git-import-answer: ${calls} calls, p95 ${p95.toFixed(1)} ms vs bare start ${base.toFixed(1)} ms`);
      return [
        {
          measure: 'POST …/git/import answer p95',
          value: p95,
          unit: 'ms',
          baseline: 'bare Temporal workflow start p95',
          baselineValue: base,
          ratio: p95 / base,
          target: 'ratio ≤ 1.5',
          met: p95 / base <= 1.5,
          note:
            `${calls} calls each, alternating; p50 ${percentile(Float64Array.from(answer).sort(), 50).toFixed(1)} vs ${percentile(Float64Array.from(bare).sort(), 50).toFixed(1)} ms; ` +
            `${handed.length} requests reached their workflow p50 ${percentile(handed, 50).toFixed(1)}, p95 ${percentile(handed, 95).toFixed(1)} ms after their row`,
        },
      ];
    } finally {
      await Promise.allSettled(started.map((id) => client.workflow.getHandle(id).terminate('benchmark baseline')));
      await connection.close();
    }
  });
}
