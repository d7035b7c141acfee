import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { sql } from '../support/sql.ts';

/**
 * Reusable contents in Git Sync: the files under `.gitbook/includes/` are imported as the
 * revision's reusable contents (a dangling `{% include %}` never fails the import), keep their
 * ids across imports, are served by the revision reads, and are written back on export so that
 * the exported commit imports to the same content.
 */
let t: TestApp;
let org: TestOrg;
let git: GitServer;

const REPO: Record<string, string> = {
  'README.md': '# Welcome\n\n{% include ".gitbook/includes/intro.md" %}\n\n{% include ".gitbook/includes/gone.md" %}\n',
  'guides/install.md': '# Install\n\n{% include "../.gitbook/includes/intro.md" %}\n\nThen [go home](../README.md).\n',
  '.gitbook/includes/intro.md':
    '---\ntitle: Shared intro\n---\n\n# Before you start\n\nRead the [install guide](../../guides/install.md).\n',
  '.gitbook/includes/legal notice.md': '# Legal notice\n\nAll rights reserved.\n',
};

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Git includes org');
  git = await startGitServer();
});
afterAll(async () => {
  await git?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;
const at = (n: number) => new Date(Date.UTC(2026, 1, 1, 0, 0, n)).toISOString();

async function newSpace(): Promise<string> {
  const res = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Includes' });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function requestStates(spaceId: string): Promise<string[]> {
  const rows = await sql<{ state: string }>(
    t.orm.em.fork(),
    'select state from git_sync_request where space_id = ? order by requested_at, id',
    [spaceId],
  );
  return rows.map((r) => r.state);
}

/** Waits until `count` requests of the space have finished, and answers their states. */
async function settled(spaceId: string, count: number): Promise<string[]> {
  return eventually(async () => {
    const states = await requestStates(spaceId);
    return states.length >= count && !states.includes('queued') ? states : undefined;
  }, 60_000);
}

async function importFrom(spaceId: string, repo: string, n: number, force = false) {
  const res = await admin().post(`/v1/spaces/${spaceId}/git/import`, {
    url: git.url(repo),
    ref: 'refs/heads/main',
    timestamp: at(n),
    force,
  });
  expect(res.status).toBe(204);
}

async function current(spaceId: string) {
  const res = await admin().get(`/v1/spaces/${spaceId}/content`);
  expect(res.status).toBe(200);
  return res.body;
}

async function reusableText(spaceId: string, revisionId: string, id: string): Promise<string> {
  const res = await admin().get(`/v1/spaces/${spaceId}/revisions/${revisionId}/reusable-contents/${id}/document`);
  expect(res.status).toBe(200);
  return JSON.stringify(res.body);
}

async function stored(spaceId: string, revisionId: string) {
  return sql<{ reusable_content_id: string; title: string; path: string; markdown: string }>(
    t.orm.em.fork(),
    `select rc.reusable_content_id, rc.title, rc.path, d.markdown from revision_reusable_content rc
       join page_document d on d.space_id = ? and d.hash = rc.document_hash
      where rc.revision_id = ? order by rc.path`,
    [spaceId, revisionId],
  );
}

describe('reusable contents in Git Sync', () => {
  it('imports .gitbook/includes as reusable contents, whatever the includes in pages name', async () => {
    git.commit('includes', REPO, { message: 'Docs with includes' });
    const spaceId = await newSpace();
    await importFrom(spaceId, 'includes', 1);
    expect(await settled(spaceId, 1)).toEqual(['applied']);
    const revision = await current(spaceId);
    expect(revision.pages.map((p: { title: string }) => p.title)).toEqual(['Welcome', 'guides']);
    expect(revision.reusableContents).toEqual([
      { id: expect.any(String), title: 'Legal notice', path: '.gitbook/includes/legal notice.md' },
      { id: expect.any(String), title: 'Shared intro', path: '.gitbook/includes/intro.md' },
    ]);
    const intro = revision.reusableContents[1].id;
    const install = revision.pages[1].pages[0];
    const rows = await stored(spaceId, revision.id);
    expect(rows.find((r) => r.title === 'Shared intro')!.markdown).toBe(
      `# Before you start\n\nRead the [install guide](gitbook://page/${install.id}).\n`,
    );
    expect(await reusableText(spaceId, revision.id, intro)).toContain('Before you start');
    // The dangling include stays in the page as written.
    const welcome = await admin().get(`/v1/spaces/${spaceId}/content/page/${revision.pages[0].id}`);
    expect(welcome.body.markdown).toContain('{% include ".gitbook/includes/gone.md" %}');

    // A commit that changes only an include writes a revision; the content keeps its id.
    git.commit('includes', { '.gitbook/includes/intro.md': '---\ntitle: Shared intro, revised\n---\n\nNew words.\n' });
    await importFrom(spaceId, 'includes', 2);
    expect(await settled(spaceId, 2)).toEqual(['applied', 'applied']);
    const next = await current(spaceId);
    expect(next.id).not.toBe(revision.id);
    expect(next.reusableContents.find((r: { id: string }) => r.id === intro)).toMatchObject({ title: 'Shared intro, revised' });
    expect(await reusableText(spaceId, next.id, intro)).toContain('New words.');
    // The earlier revision still reads as it was.
    expect(await reusableText(spaceId, revision.id, intro)).toContain('Before you start');

    // A commit that deletes an include removes it from the next revision.
    git.commit('includes', { '.gitbook/includes/legal notice.md': null });
    await importFrom(spaceId, 'includes', 3);
    await settled(spaceId, 3);
    expect((await current(spaceId)).reusableContents.map((r: { id: string }) => r.id)).toEqual([intro]);
  }, 180_000);

  it('writes reusable contents back on export, and the exported commit imports to the same content', async () => {
    git.commit('trip', REPO);
    const spaceId = await newSpace();
    await importFrom(spaceId, 'trip', 1);
    await settled(spaceId, 1);
    const imported = await current(spaceId);

    git.create('trip-out');
    const exported = await admin().post(`/v1/spaces/${spaceId}/git/export`, {
      url: git.url('trip-out'),
      ref: 'refs/heads/main',
      commitMessage: 'Export',
      timestamp: at(2),
    });
    expect(exported.status).toBe(204);
    expect(await settled(spaceId, 2)).toEqual(['applied', 'applied']);
    const files = git.read('trip-out');
    expect(
      Object.keys(files)
        .filter((p) => p.startsWith('.gitbook/includes/'))
        .sort(),
    ).toEqual(['.gitbook/includes/intro.md', '.gitbook/includes/legal notice.md']);
    expect(files['.gitbook/includes/intro.md'].toString()).toBe(
      '---\ntitle: "Shared intro"\n---\n\n# Before you start\n\nRead the [install guide](../../guides/install.md).\n',
    );
    expect(files['README.md'].toString()).toContain('{% include ".gitbook/includes/intro.md" %}');

    // Importing the exported commit again (forced, so it is read) changes nothing.
    await importFrom(spaceId, 'trip-out', 3, true);
    expect((await settled(spaceId, 3)).slice(-1)).toEqual(['unchanged']);
    expect((await current(spaceId)).id).toBe(imported.id);

    // Into a fresh space it gives the same reusable contents.
    const copy = await newSpace();
    await importFrom(copy, 'trip-out', 4);
    await settled(copy, 1);
    const copied = await current(copy);
    const shape = (r: { title: string; path: string; markdown: string }) => ({
      title: r.title,
      path: r.path,
      markdown: r.markdown.replace(/gitbook:\/\/page\/[^)]+/g, 'PAGE'),
    });
    expect((await stored(copy, copied.id)).map(shape)).toEqual((await stored(spaceId, imported.id)).map(shape));
  }, 180_000);

  it('carries reusable contents through edits made in the space', async () => {
    git.commit('carry', REPO);
    const spaceId = await newSpace();
    await importFrom(spaceId, 'carry', 1);
    await settled(spaceId, 1);
    const before = await current(spaceId);
    const cr = await admin().post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Edit' });
    await admin().post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/content`, {
      changes: [{ operation: 'update_page', page: before.pages[0].id, title: 'Home' }],
    });
    // The change request's content has them, and so does the space after the merge.
    const inCr = await admin().get(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/content`);
    expect(inCr.body.reusableContents).toEqual(before.reusableContents);
    expect((await admin().post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/merge`)).body.result).toBe('merge');
    const after = await current(spaceId);
    expect(after.id).not.toBe(before.id);
    expect(after.reusableContents).toEqual(before.reusableContents);
  }, 120_000);
});
