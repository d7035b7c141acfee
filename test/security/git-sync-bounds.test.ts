import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { sql } from '../support/sql.ts';
import { gitSyncActivities } from '../../src/activities/git-sync.ts';
import type { GitSyncActivityOptions } from '../../src/activities/git-sync-options.ts';
import { insertGitSyncRequest, requestSecretContext } from '../../src/db/git-sync.ts';
import { LocalBlobStore } from '../../src/lib/blob-store.ts';
import { secretBox } from '../../src/lib/secrets.ts';
import { loadConfig } from '../../src/config.ts';

/**
 * A repository built to exhaust the worker's memory, pushed and imported as a space's Git Sync
 * would: more markdown files than an import reads, one markdown file too large, or many files
 * each within the limit whose total is too large. Each import fails with its own code (recorded,
 * not retried), and the space keeps its content. The import runs as the worker runs it, with
 * limits small enough for a test (GIT_MAX_MARKDOWN_*).
 */

let t: TestApp;
let org: TestOrg;
let git: GitServer;
let scratch: string;
const box = secretBox(randomBytes(32));
const LIMITS = { maxFiles: 20, maxFileBytes: 4096, maxTotalBytes: 16 * 1024 };

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Git bounds');
  git = await startGitServer();
  scratch = mkdtempSync(join(tmpdir(), 'git-bounds-'));
});
afterAll(async () => {
  await git?.close();
  await t?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function activities(markdown: GitSyncActivityOptions['markdown'] = LIMITS) {
  return gitSyncActivities(t.orm, {
    blobs: new LocalBlobStore(join(scratch, 'blobs')),
    cacheDir: join(scratch, 'cache'),
    maxFileBytes: 100 * 1024 * 1024,
    markdown,
    timeoutMs: 60_000,
    policy: { allowPrivate: false, allowHosts: ['127.0.0.1'], timeoutMs: 60_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 0 },
    secrets: async () => box,
  });
}

let requests = 0;
/** Imports the repository `name` into a new space as the worker does; the outcome and the space. */
async function importRepository(name: string, markdown?: GitSyncActivityOptions['markdown']) {
  const space = (await org.members.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: name })).body;
  const requestId = `bounds-${name}-${++requests}-${Date.now()}`;
  await insertGitSyncRequest(t.orm.em.fork(), {
    id: requestId,
    spaceId: space.id,
    kind: 'import',
    requestedAt: new Date(),
    requestedBy: null,
    params: { url: git.url(name, false), ref: 'refs/heads/main' },
    credentials: box.seal(JSON.stringify({ username: 'git-user', password: 's3cret-pass' }), requestSecretContext(requestId)),
  });
  const outcome = await activities(markdown).runGitSyncRequest(requestId);
  return { outcome, space };
}

/** The request as recorded: failed for good (never retried), with the failure's code. */
async function requestState(spaceId: string) {
  const [row] = await sql<{ state: string; code: string }>(
    t.orm.em.fork(),
    "select state, detail->>'code' as code from git_sync_request where space_id = ?",
    [spaceId],
  );
  return row;
}

const pages = (count: number, bytes: number) => {
  const files: Record<string, string> = {
    'SUMMARY.md': `# Table of contents\n\n${Array.from({ length: count }, (_, i) => `* [Page ${i}](page-${i}.md)\n`).join('')}`,
  };
  for (let i = 0; i < count; i++) files[`page-${i}.md`] = `# Page ${i}\n\n${'x'.repeat(Math.max(0, bytes - 20))}\n`;
  return files;
};

describe('Git Sync reads a bounded amount of markdown', () => {
  it('imports a repository within every limit', async () => {
    git.commit('within', pages(10, 1000));
    const { outcome, space } = await importRepository('within');
    expect(outcome).toMatchObject({ state: 'applied' });
    const tree = (await org.members.admin.api.get(`/v1/spaces/${space.id}/content/pages`)).body.pages;
    expect(tree).toHaveLength(10);
  });

  it('refuses more markdown files than one import reads (TOO_MANY_FILES)', async () => {
    git.commit('many', pages(60, 50));
    const { outcome, space } = await importRepository('many');
    expect(outcome).toMatchObject({
      state: 'failed',
      code: 'TOO_MANY_FILES',
      message: expect.stringMatching(/61 markdown files.*limit of 20/),
    });
    expect(await requestState(space.id)).toEqual({ state: 'failed', code: 'TOO_MANY_FILES' });
  });

  it('refuses to export on top of a branch holding more markdown than one import reads, and leaves the branch as it was', async () => {
    git.commit('export-within', pages(10, 1000));
    const { outcome: imported, space } = await importRepository('export-within');
    expect(imported).toMatchObject({ state: 'applied' });
    // The branch grows past the limits; an export onto it would read it all.
    const tip = git.commit('export-within', pages(60, 50));
    const requestId = `bounds-export-${++requests}-${Date.now()}`;
    await insertGitSyncRequest(t.orm.em.fork(), {
      id: requestId,
      spaceId: space.id,
      kind: 'export',
      requestedAt: new Date(),
      requestedBy: null,
      params: { url: git.url('export-within', false), ref: 'refs/heads/main', commitMessage: 'Export' },
      credentials: box.seal(JSON.stringify({ username: 'git-user', password: 's3cret-pass' }), requestSecretContext(requestId)),
    });
    const outcome = await activities().runGitSyncRequest(requestId);
    expect(outcome).toMatchObject({
      state: 'failed',
      code: 'TOO_MANY_FILES',
      message: expect.stringMatching(/61 markdown files.*limit of 20/),
    });
    expect(git.head('export-within')).toBe(tip);
  });

  it('refuses one markdown file over the markdown limit, though far below the limit of any file (FILE_TOO_LARGE)', async () => {
    git.commit('big-page', { 'README.md': `# Big\n\n${'y'.repeat(64 * 1024)}\n` });
    const { outcome, space } = await importRepository('big-page');
    expect(outcome).toMatchObject({
      state: 'failed',
      code: 'FILE_TOO_LARGE',
      message: expect.stringMatching(/README\.md is \d+ bytes, more than the limit of 4096/),
    });
    expect(await requestState(space.id)).toEqual({ state: 'failed', code: 'FILE_TOO_LARGE' });
  });

  it('refuses many files each within the limit whose total is more than one import reads (MARKDOWN_TOO_LARGE)', async () => {
    git.commit('total', pages(8, 4000));
    const { outcome, space } = await importRepository('total');
    expect(outcome).toMatchObject({
      state: 'failed',
      code: 'MARKDOWN_TOO_LARGE',
      message: expect.stringMatching(/more than the limit of 16384/),
    });
    expect(await requestState(space.id)).toEqual({ state: 'failed', code: 'MARKDOWN_TOO_LARGE' });
    // The space keeps the content it had: no revision but the first.
    const revisions = await sql<{ n: string }>(t.orm.em.fork(), 'select count(*) as n from revision where space_id = ?', [space.id]);
    expect(Number(revisions[0].n)).toBe(1);
  });

  it('reads a repository larger than one read batch whole', async () => {
    // 300 files of 20 KiB: several batches of git cat-file (by count and by bytes).
    git.commit('batches', pages(300, 20 * 1024));
    const { outcome, space } = await importRepository('batches', {
      maxFiles: 1000,
      maxFileBytes: 64 * 1024,
      maxTotalBytes: 16 * 1024 * 1024,
    });
    expect(outcome).toMatchObject({ state: 'applied' });
    const tree = (await org.members.admin.api.get(`/v1/spaces/${space.id}/content/pages`)).body.pages;
    expect(tree).toHaveLength(300);
    const last = tree[299];
    const page = (await org.members.admin.api.get(`/v1/spaces/${space.id}/content/page/${last.id}`)).body;
    expect(page.markdown.length).toBeGreaterThan(20_000);
  });

  describe('a hostile SUMMARY.md fails the import with the markdown limit it passes, and the worker goes on', () => {
    /** Room for the files below: the summary's own limits decide, not the byte limits. */
    const ROOMY = { maxFiles: 20, maxFileBytes: 16 * 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024 };
    const repo = (summary: string) => ({ 'README.md': '# Home\n', 'a.md': '# A\n', 'SUMMARY.md': summary });

    /** The import of `summary` fails for good with MARKDOWN_LIMIT naming `limit`; the space and the worker are as before. */
    async function refused(name: string, summary: string, message: RegExp) {
      git.commit(name, repo(summary));
      const { outcome, space } = await importRepository(name, ROOMY);
      expect(outcome).toMatchObject({ state: 'failed', code: 'MARKDOWN_LIMIT', message: expect.stringMatching(message) });
      expect(await requestState(space.id)).toEqual({ state: 'failed', code: 'MARKDOWN_LIMIT' });
      const revisions = await sql<{ n: string }>(t.orm.em.fork(), 'select count(*) as n from revision where space_id = ?', [space.id]);
      expect(Number(revisions[0].n)).toBe(1);
      // The API answers, and the next import (same process, same parsing pool) reads its summary.
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      git.commit(`${name}-after`, repo('# Table of contents\n\n* [Home](README.md)\n  * [A](a.md)\n'));
      const after = await importRepository(`${name}-after`, ROOMY);
      expect(after.outcome).toMatchObject({ state: 'applied' });
      const tree = (await org.members.admin.api.get(`/v1/spaces/${after.space.id}/content/pages`)).body.pages;
      expect(tree.map((p: { title: string; pages: { title: string }[] }) => [p.title, p.pages.map((c) => c.title)])).toEqual([
        ['Home', ['A']],
      ]);
    }

    it.each([
      ['5,000 levels of list items on one line', 'one-line-5k', `${'* '.repeat(5_000)}[a](a.md)\n`],
      ['50,000 levels of list items on one line', 'one-line-50k', `${'* '.repeat(50_000)}[a](a.md)\n`],
      ['200,000 levels of quotes around a list', 'quotes-200k', `${'> '.repeat(200_000)}* [a](a.md)\n`],
      ['200,000 levels of ordered and bullet items', 'mixed-200k', `${'1. - '.repeat(100_000)}[a](a.md)\n`],
      [
        '600 levels of items, each indented under the one before',
        'indented-600',
        Array.from({ length: 600 }, (_, i) => `${'  '.repeat(i)}* [Level ${i}](a.md)\n`).join(''),
      ],
    ])('%s (MAX_NESTING)', async (_what, name, summary) => {
      await refused(name, summary, /SUMMARY\.md.*nested too deeply.*limit MAX_NESTING/);
    });

    it('a 10 MB SUMMARY.md (MAX_PAGE_SIZE)', async () => {
      const line = '* [A page with a long enough title](a.md)\n';
      await refused(
        'summary-10mb',
        line.repeat(Math.ceil((10 * 1024 * 1024) / line.length)),
        /SUMMARY\.md.*too large.*limit MAX_PAGE_SIZE/,
      );
    });

    it('square brackets nested inside one item (MAX_BRACKET_NESTING)', async () => {
      await refused('summary-brackets', `* ${'['.repeat(20_000)}a${']'.repeat(20_000)}(a.md)\n`, /SUMMARY\.md.*limit MAX_BRACKET_NESTING/);
    });

    it('strong emphasis nested 6,000 levels inside one item (MAX_EMPHASIS_NESTING)', async () => {
      await refused(
        'summary-strong',
        `* ${'**'.repeat(6_000)}[Deep](a.md)${'**'.repeat(6_000)}\n`,
        /SUMMARY\.md.*limit MAX_EMPHASIS_NESTING/,
      );
    });
  });

  it('has defaults well above a real documentation repository (about 200 pages, a few MB)', () => {
    const { gitMarkdown } = loadConfig({});
    expect(gitMarkdown.maxFiles).toBeGreaterThanOrEqual(10 * 200);
    expect(gitMarkdown.maxTotalBytes).toBeGreaterThanOrEqual(10 * 5 * 1024 * 1024);
    expect(gitMarkdown.maxFileBytes).toBeLessThan(loadConfig({}).gitMaxFileBytes);
  });
});
