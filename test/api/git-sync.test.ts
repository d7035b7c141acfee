import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { client, createTestOrg, eventually, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { sql } from '../support/sql.ts';
import { insertGitSyncRequest, lockGitSync, lockSpace, recordDelivery, unsignalledGitSyncRequests } from '../../src/db/git-sync.ts';
import { buildApp } from '../../src/api/app.ts';
import { resendGitSyncRequests } from '../../src/api/git/service.ts';
import { logger } from '../../src/lib/logger.ts';
import { gitSyncWorkflowId } from '../../src/temporal/git-sync.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let git: GitServer;

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A repository as GitBook users keep them: root in docs/, nesting, a group, assets with spaces, GitBook blocks. */
const SAMPLE: Record<string, string | Buffer> = {
  '.gitbook.yaml': 'root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n',
  'docs/SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Welcome](README.md)',
    '* [Guides](guides/README.md)',
    '  * [Install](guides/install.md)',
    '  * [Set up](guides/set%20up.md)',
    '',
    '## Reference',
    '',
    '* [API](reference/api.md)',
    '',
  ].join('\n'),
  'docs/README.md':
    '---\ndescription: Where it starts\n---\n\n# Welcome\n\nRead [install](guides/install.md#step-2).\n\n![logo](.gitbook/assets/my%20logo.png)\n',
  'docs/guides/README.md': '# Guides\n\n{% hint style="info" %}\nSee the [API](../reference/api.md).\n{% endhint %}\n',
  'docs/guides/install.md':
    '# Install\n\nLine one.\nLine two.\nLine three.\n\n{% tabs %}\n{% tab title="npm" %}\n```sh\nnpm i\n```\n{% endtab %}\n{% endtabs %}\n',
  'docs/guides/set up.md': '# Set up\n\n![diagram](<../.gitbook/assets/my logo.png>)\n',
  'docs/reference/api.md': '# API\n\n{% embed url="https://example.com/video" %}\n\nBack [home](../README.md).\n',
  'docs/.gitbook/assets/my logo.png': PNG,
};

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Git org');
  other = await createTestOrg(t, 'Other git org');
  git = await startGitServer();
});
afterAll(async () => {
  await git?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;

async function newSpace(api: Api = admin(), orgId = org.id): Promise<string> {
  const res = await api.post(`/v1/orgs/${orgId}/spaces`, { title: 'Synced' });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function spaceRevision(spaceId: string): Promise<string> {
  return (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;
}

async function revisionCount(spaceId: string): Promise<number> {
  const rows = await sql<{ n: string }>(t.orm.em.fork(), 'select count(*) as n from revision where space_id = ?', [spaceId]);
  return Number(rows[0].n);
}

/** Waits until the request with this body has finished (git info updated after `before`). */
async function info(spaceId: string, until: (info: any) => boolean) {
  return eventually(async () => {
    const res = await admin().get(`/v1/spaces/${spaceId}/git/info`);
    return res.status === 200 && until(res.body) ? res.body : undefined;
  }, 60_000);
}

async function requestStates(spaceId: string): Promise<string[]> {
  const rows = await sql<{ state: string }>(
    t.orm.em.fork(),
    'select state from git_sync_request where space_id = ? order by requested_at, id',
    [spaceId],
  );
  return rows.map((r) => r.state);
}

async function settled(spaceId: string, count: number) {
  return eventually(async () => {
    const states = await requestStates(spaceId);
    return states.length >= count && !states.includes('queued') ? states : undefined;
  }, 60_000);
}

type PageOut = { id: string; title: string; type: string; slug: string; markdown?: string; description?: string; pages: PageOut[] };

async function pages(spaceId: string): Promise<PageOut[]> {
  const res = await admin().get(`/v1/spaces/${spaceId}/content/pages`);
  expect(res.status).toBe(200);
  return res.body.pages;
}

function outline(list: PageOut[]): unknown[] {
  return list.map((p) => (p.pages?.length ? { [p.title]: outline(p.pages) } : p.title));
}

async function pageMarkdown(spaceId: string, pageId: string): Promise<string> {
  const res = await admin().get(`/v1/spaces/${spaceId}/content/page/${pageId}`);
  return res.body.markdown ?? res.body.document?.markdown ?? '';
}

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

describe('git import', () => {
  it('imports the GitBook layout of a real repository as one new revision with git metadata', async () => {
    const commit = git.commit('sample', SAMPLE, { message: 'First docs' });
    const spaceId = await newSpace();
    const before = await revisionCount(spaceId);
    const res = await admin().post(`/v1/spaces/${spaceId}/git/import`, {
      url: git.url('sample'),
      ref: 'refs/heads/main',
      timestamp: at(1),
      repoCommitURL: 'https://git.example/commit/',
    });
    expect(res.status).toBe(204);
    const done = await info(spaceId, (i) => i.lastSyncedCommit === commit);
    expect(done).toMatchObject({
      status: 'ok',
      installationId: spaceId,
      // A host that is neither GitHub's nor GitLab's syncs as GitBook's GitLab Git Sync does (spaces/present.ts).
      installationProvider: 'gitlab',
      installationStatus: 'active',
      repoName: 'sample',
      url: git.url('sample', false),
      ref: 'refs/heads/main',
    });
    expect(JSON.stringify(done)).not.toContain('s3cret-pass');
    expect(await revisionCount(spaceId)).toBe(before + 1);

    const tree = await pages(spaceId);
    expect(outline(tree)).toEqual(['Welcome', { Guides: ['Install', 'Set up'] }, { Reference: ['API'] }]);
    const install = tree[1].pages[0];
    const welcome = await pageMarkdown(spaceId, tree[0].id);
    expect(welcome).toContain(`gitbook://page/${install.id}#step-2`);
    expect(await pageMarkdown(spaceId, install.id)).toContain('{% tabs %}\n{% tab title="npm" %}');
    expect(tree[0].description).toBe('Where it starts');

    const files = (await admin().get(`/v1/spaces/${spaceId}/content/files`)).body.items;
    expect(files.map((f: { name: string }) => f.name)).toEqual(['my logo.png']);
    expect(files[0]).toMatchObject({ contentType: 'image/png', size: PNG.length, dimensions: { width: 1, height: 1 } });

    const content = (await admin().get(`/v1/spaces/${spaceId}/content`)).body;
    expect(content.git).toMatchObject({
      oid: commit,
      message: 'First docs',
      ref: 'refs/heads/main',
      url: `https://git.example/commit/${commit}`,
    });
    const space = (await admin().get(`/v1/spaces/${spaceId}`)).body;
    expect(space.gitSync).toMatchObject({ repoName: 'sample', url: git.url('sample', false) });

    // Credentials are erased once the request ran, and never stored in plain text.
    const rows = await sql<{ credentials: string | null; params: object }>(
      t.orm.em.fork(),
      'select credentials, params from git_sync_request where space_id = ?',
      [spaceId],
    );
    expect(rows[0].credentials).toBeNull();
    expect(JSON.stringify(rows)).not.toContain('s3cret-pass');

    // Search sees the imported pages.
    const search = await admin().get(`/v1/spaces/${spaceId}/search?query=three`);
    expect(search.status).toBe(200);
  });

  it('records the same push once and writes one revision', async () => {
    git.commit('dupe', SAMPLE);
    const spaceId = await newSpace();
    const before = await revisionCount(spaceId);
    const body = { url: git.url('dupe'), ref: 'refs/heads/main', timestamp: at(5) };
    expect((await admin().post(`/v1/spaces/${spaceId}/git/import`, body)).status).toBe(204);
    expect((await admin().post(`/v1/spaces/${spaceId}/git/import`, body)).status).toBe(204);
    await settled(spaceId, 1);
    // Another delivery of the same commit with a new timestamp changes nothing either.
    expect((await admin().post(`/v1/spaces/${spaceId}/git/import`, { ...body, timestamp: at(6) })).status).toBe(204);
    expect(await settled(spaceId, 2)).toEqual(['applied', 'unchanged']);
    expect(await revisionCount(spaceId)).toBe(before + 1);
  });

  it('answers a new push at once while an earlier sync of the space holds its rows to apply', async () => {
    git.commit('held', SAMPLE);
    const spaceId = await newSpace();
    const body = { url: git.url('held'), ref: 'refs/heads/main' };
    expect((await admin().post(`/v1/spaces/${spaceId}/git/import`, { ...body, timestamp: at(20) })).status).toBe(204);
    await settled(spaceId, 1);
    // The locks an apply takes for its whole transaction (activities/git-sync-apply.ts), held meanwhile.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const taken = new Promise<void>((resolve) => (locked = resolve));
    const applying = transaction(forkEm(t.orm), async (tx) => {
      await lockGitSync(tx, spaceId);
      await lockSpace(tx, spaceId);
      locked();
      await held;
    });
    await taken;
    try {
      const answer = admin().post(`/v1/spaces/${spaceId}/git/import`, { ...body, timestamp: at(21) });
      const outcome = await Promise.race([answer, new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 5_000))]);
      expect(outcome === 'waiting' ? outcome : outcome.status).toBe(204);
    } finally {
      release();
      await applying;
    }
    expect(await settled(spaceId, 2)).toEqual(['applied', 'unchanged']);
  });

  it('answers a request while the job service is down, and runs it once the request is sent again', async () => {
    git.commit('down', SAMPLE);
    const spaceId = await newSpace();
    // An API process whose Temporal connection is gone: the signal after the answer fails.
    const connection = await Connection.connect({ address: t.config.temporalAddress! });
    await connection.close();
    const log: string[] = [];
    const down = await buildApp(
      { config: t.config, orm: t.orm, temporal: new Client({ connection }) },
      {
        logger: logger('debug', {
          pretty: false,
          destination: new Writable({ write: (chunk, _e, done) => done(void log.push(String(chunk))) }),
        }),
      },
    );
    const res = await client(down, org.members.admin.token).post(`/v1/spaces/${spaceId}/git/import`, {
      url: git.url('down'),
      ref: 'refs/heads/main',
      timestamp: at(30),
    });
    expect(res.status).toBe(204);
    await down.close(); // waits for the signal that follows the answer
    expect(log.some((line) => line.includes('the job service did not take it'))).toBe(true);
    const row = async () =>
      (
        await sql<{ id: string; state: string; signalled_at: Date | null }>(
          t.orm.em.fork(),
          'select id, state, signalled_at from git_sync_request where space_id = ?',
          [spaceId],
        )
      )[0];
    expect(await row()).toMatchObject({ state: 'queued', signalled_at: null });
    await expect(t.temporal.workflow.getHandle(gitSyncWorkflowId(spaceId)).describe()).rejects.toThrow(WorkflowNotFoundError);

    // Younger than the resend period (this app's: an hour): not sent again (its own signal may still be on its way).
    expect(await resendGitSyncRequests(t.app.deps, t.app.log)).toBe(0);
    expect(await row()).toMatchObject({ state: 'queued', signalled_at: null });
    // An API process whose period has passed sends it on its own timer, and it runs.
    const resender = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', GIT_SYNC_RESEND_AFTER: '300ms' });
    try {
      expect(await settled(spaceId, 1)).toEqual(['applied']);
    } finally {
      await resender.close();
    }
    expect((await row()).signalled_at).not.toBeNull();
    // Run, it is never sent again.
    expect(await unsignalledGitSyncRequests(forkEm(t.orm), 0, 1000)).not.toContainEqual(expect.objectContaining({ spaceId }));
  });

  it('applies requests in timestamp order: an older one is skipped unless forced', async () => {
    git.commit('order', { 'README.md': '# Home\n\nOld text.\n' }, { branch: 'old' });
    const newer = git.commit('order', { 'README.md': '# Home\n\nNew text.\n' });
    const spaceId = await newSpace();
    expect(
      (await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('order'), ref: 'refs/heads/main', timestamp: at(20) })).status,
    ).toBe(204);
    await info(spaceId, (i) => i.lastSyncedCommit === newer);
    const revision = await spaceRevision(spaceId);
    expect(
      (await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('order'), ref: 'refs/heads/old', timestamp: at(10) })).status,
    ).toBe(204);
    expect(await settled(spaceId, 2)).toEqual(['skipped', 'applied']);
    expect(await spaceRevision(spaceId)).toBe(revision);
    expect(
      (
        await admin().post(`/v1/spaces/${spaceId}/git/import`, {
          url: git.url('order'),
          ref: 'refs/heads/old',
          timestamp: at(11),
          force: true,
        })
      ).status,
    ).toBe(204);
    await settled(spaceId, 3);
    const tree = await pages(spaceId);
    expect(await pageMarkdown(spaceId, tree[0].id)).toBe('Old text.\n');
  });

  it('records a readable failure and leaves the space unchanged: bad ref, refused credentials, unreachable host, not a GitBook layout', async () => {
    git.commit('plain', { 'code.js': 'console.log(1)\n' });
    git.commit('fine', { 'README.md': '# Fine\n' });
    const cases: [object, string, RegExp][] = [
      [{ url: git.url('fine'), ref: 'refs/heads/nope' }, 'BAD_REF', /refs\/heads\/nope/],
      [{ url: git.url('fine', { username: 'git-user', password: 'wrong-pass' }), ref: 'refs/heads/main' }, 'AUTH_REFUSED', /refused/],
      [{ url: 'http://127.0.0.1:1/x.git', ref: 'refs/heads/main' }, 'UNREACHABLE', /could not be reached/],
      [{ url: git.url('plain'), ref: 'refs/heads/main' }, 'NOT_GITBOOK_LAYOUT', /no markdown/],
      [{ url: 'http://169.254.169.254/x.git', ref: 'refs/heads/main' }, 'ADDRESS_NOT_ALLOWED', /metadata/],
    ];
    for (const [body, code, message] of cases) {
      const spaceId = await newSpace();
      const revision = await spaceRevision(spaceId);
      expect((await admin().post(`/v1/spaces/${spaceId}/git/import`, body)).status).toBe(204);
      const failed = await info(spaceId, (i) => i.status === 'failed');
      expect(failed.lastSyncError).toMatchObject({ code, message: expect.stringMatching(message) });
      expect(JSON.stringify(failed)).not.toMatch(/wrong-pass|s3cret-pass/);
      expect(await spaceRevision(spaceId)).toBe(revision);
    }
  }, 180_000);
});

describe('git export and the round trip', () => {
  it('exports the space into the layout, and import → export → import changes nothing', async () => {
    git.commit('trip-source', SAMPLE);
    const spaceId = await newSpace();
    await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('trip-source'), ref: 'refs/heads/main', timestamp: at(1) });
    await info(spaceId, (i) => i.status === 'ok');
    const imported = await spaceRevision(spaceId);
    const before = await pages(spaceId);

    git.create('trip-target');
    expect(
      (
        await admin().post(`/v1/spaces/${spaceId}/git/export`, {
          url: git.url('trip-target'),
          ref: 'refs/heads/main',
          commitMessage: 'Export from docs',
          timestamp: at(2),
        })
      ).status,
    ).toBe(204);
    const exported = await info(spaceId, (i) => i.lastOperation === 'export' && i.status === 'ok');
    const head = git.head('trip-target');
    expect(exported.lastSyncedCommit).toBe(head);
    const files = git.read('trip-target');
    expect(Object.keys(files).sort()).toEqual([
      '.gitbook/assets/my logo.png',
      'README.md',
      'SUMMARY.md',
      'guides/README.md',
      'guides/install.md',
      'guides/set-up.md',
      'reference/api.md',
    ]);
    expect(files['.gitbook/assets/my logo.png'].toString('base64')).toBe(PNG.toString('base64'));
    expect(files['README.md'].toString()).toContain('[install](guides/install.md#step-2)');
    expect(files['guides/README.md'].toString()).toContain('{% hint style="info" %}\nSee the [API](../reference/api.md).');

    // Importing the exported commit (forced, so it is read again) finds nothing to change.
    await admin().post(`/v1/spaces/${spaceId}/git/import`, {
      url: git.url('trip-target'),
      ref: 'refs/heads/main',
      timestamp: at(3),
      force: true,
    });
    expect((await settled(spaceId, 3)).slice(-1)).toEqual(['unchanged']);
    expect(await spaceRevision(spaceId)).toBe(imported);

    // And into a fresh space it gives the same tree and texts.
    const copy = await newSpace();
    await admin().post(`/v1/spaces/${copy}/git/import`, { url: git.url('trip-target'), ref: 'refs/heads/main', timestamp: at(4) });
    await info(copy, (i) => i.status === 'ok');
    const after = await pages(copy);
    expect(outline(after)).toEqual(outline(before));
    expect(await pageMarkdown(copy, after[1].pages[0].id)).toBe(await pageMarkdown(spaceId, before[1].pages[0].id));
  }, 180_000);
});

describe('heavy assets', () => {
  /** Random bytes behind a PNG or GIF header with these dimensions: as incompressible as real images. */
  const image = (kind: 'png' | 'gif', size: number, width: number, height: number) => {
    const bytes = randomBytes(size);
    if (kind === 'gif') {
      bytes.write('GIF89a', 0, 'latin1');
      bytes.writeUInt16LE(width, 6);
      bytes.writeUInt16LE(height, 8);
    } else {
      PNG.copy(bytes, 0, 0, 16);
      bytes.writeUInt32BE(width, 16);
      bytes.writeUInt32BE(height, 20);
    }
    return bytes;
  };

  it('imports large images with spaces and parentheses in their names byte for byte, measured, and exports them back the same', async () => {
    const gif = image('gif', 2_300_000, 800, 600);
    const shot = image('png', 400_000, 1280, 720);
    const linked = image('png', 1_200_000, 300, 200);
    git.commit('heavy', {
      'README.md': [
        '# Home',
        '',
        '<figure><img src=".gitbook/assets/demo%20(1).gif" alt=""><figcaption><p>Demo</p></figcaption></figure>',
        '',
        '![Shot](<.gitbook/assets/Screenshot 2024-03-05 at 10.15.32 (2).png>)',
        '',
        '![Diagram](images/diagram%20(final).png)',
        '',
      ].join('\n'),
      '.gitbook/assets/demo (1).gif': gif,
      '.gitbook/assets/Screenshot 2024-03-05 at 10.15.32 (2).png': shot,
      '.gitbook/assets/copy of demo.gif': gif,
      'images/diagram (final).png': linked,
      'images/unused.png': PNG,
    });
    const spaceId = await newSpace();
    await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('heavy'), ref: 'refs/heads/main', timestamp: at(1) });
    await info(spaceId, (i) => i.status === 'ok');
    const files: { id: string; name: string; size: number; contentType: string; dimensions?: object }[] = (
      await admin().get(`/v1/spaces/${spaceId}/content/files`)
    ).body.items;
    const byName = Object.fromEntries(files.map((f) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual([
      'Screenshot 2024-03-05 at 10.15.32 (2).png',
      'copy of demo.gif',
      'demo (1).gif',
      'diagram (final).png',
    ]);
    expect(byName['demo (1).gif']).toMatchObject({ contentType: 'image/gif', size: gif.length, dimensions: { width: 800, height: 600 } });
    expect(byName['copy of demo.gif']).toMatchObject({ size: gif.length, dimensions: { width: 800, height: 600 } });
    expect(byName['Screenshot 2024-03-05 at 10.15.32 (2).png']).toMatchObject({
      size: shot.length,
      dimensions: { width: 1280, height: 720 },
    });
    expect(byName['diagram (final).png']).toMatchObject({ size: linked.length, dimensions: { width: 300, height: 200 } });
    const home = (await pages(spaceId))[0];
    const text = await pageMarkdown(spaceId, home.id);
    for (const name of ['demo (1).gif', 'Screenshot 2024-03-05 at 10.15.32 (2).png', 'diagram (final).png'])
      expect(text).toContain(`gitbook://file/${byName[name].id}`);

    git.create('heavy-target');
    const exporting = await admin().post(`/v1/spaces/${spaceId}/git/export`, {
      url: git.url('heavy-target'),
      ref: 'refs/heads/main',
      commitMessage: 'Export',
      timestamp: at(2),
    });
    expect(exporting.status).toBe(204);
    await info(spaceId, (i) => i.lastOperation === 'export' && i.status === 'ok');
    const exported = git.read('heavy-target');
    const sha = (bytes: Buffer | undefined) => bytes && createHash('sha256').update(bytes).digest('hex');
    expect(sha(exported['.gitbook/assets/demo (1).gif'])).toBe(sha(gif));
    expect(sha(exported['.gitbook/assets/copy of demo.gif'])).toBe(sha(gif));
    expect(sha(exported['.gitbook/assets/Screenshot 2024-03-05 at 10.15.32 (2).png'])).toBe(sha(shot));
    expect(sha(exported['.gitbook/assets/diagram (final).png'])).toBe(sha(linked));
  }, 180_000);
});

describe('never losing an edit', () => {
  async function editPage(spaceId: string, pageId: string, markdown: string) {
    const cr = await admin().post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Edit' });
    expect(cr.status).toBe(201);
    const changed = await admin().post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/content`, {
      changes: [{ operation: 'update_page', page: pageId, document: { markdown } }],
    });
    expect(changed.status).toBeLessThan(300);
    const merged = await admin().post(`/v1/spaces/${spaceId}/change-requests/${cr.body.id}/merge`);
    expect(merged.body.result).toBe('merge');
  }

  it('merges edits made on both sides, and puts a true conflict in a change request', async () => {
    git.commit('both', { 'README.md': '# Home\n\nIntro.\n', 'a.md': '# A\n\nLine one.\nLine two.\nLine three.\n\nLine five.\n' });
    const spaceId = await newSpace();
    await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('both'), ref: 'refs/heads/main', timestamp: at(1) });
    await info(spaceId, (i) => i.status === 'ok');
    const a = (await pages(spaceId))[1];
    await editPage(spaceId, a.id, 'Line one EDITED IN SPACE.\nLine two.\nLine three.\n\nLine five.\n');
    // The repository changes another part: both edits are kept.
    git.commit('both', { 'a.md': '# A\n\nLine one.\nLine two.\nLine three.\n\nLine five EDITED IN GIT.\n' });
    await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('both'), ref: 'refs/heads/main', timestamp: at(2) });
    await settled(spaceId, 2);
    expect(await pageMarkdown(spaceId, a.id)).toBe('Line one EDITED IN SPACE.\nLine two.\nLine three.\n\nLine five EDITED IN GIT.\n');

    // Now both change the same line: the space keeps its text, the repository's goes to a change request.
    await editPage(spaceId, a.id, 'Line one EDITED IN SPACE.\nLine two SPACE.\nLine three.\n\nLine five EDITED IN GIT.\n');
    const revision = await spaceRevision(spaceId);
    const commit = git.commit(
      'both',
      { 'a.md': '# A\n\nLine one.\nLine two GIT.\nLine three.\n\nLine five EDITED IN GIT.\n' },
      { message: 'Rewrite line two' },
    );
    await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('both'), ref: 'refs/heads/main', timestamp: at(3) });
    const conflicted = await info(spaceId, (i) => i.status === 'conflict');
    expect(conflicted.lastSyncError).toMatchObject({ code: 'CONFLICT' });
    expect(await spaceRevision(spaceId)).toBe(revision);
    const cr = (await admin().get(`/v1/spaces/${spaceId}/change-requests/${conflicted.conflictChangeRequest}`)).body;
    expect(cr.subject).toContain(commit.slice(0, 7));
    const inCr = (await admin().get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${a.id}`)).body;
    expect(inCr.markdown ?? inCr.document?.markdown).toContain('Line two GIT.');
    // The import wrote the change request's revision: an edit by whoever asked for the import, besides opening it.
    const contributors = (await admin().get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/contributors`)).body;
    expect(contributors.items).toEqual([
      expect.objectContaining({ actionType: 'edit', count: 2, user: expect.objectContaining({ id: org.members.admin.userId }) }),
    ]);
  }, 180_000);
});

describe('push webhooks', () => {
  it('verifies GitHub signatures, ignores other branches, and starts one import per delivery', async () => {
    const commit = git.commit('hooked', { 'README.md': '# Hooked\n' });
    const spaceId = await newSpace();
    const set = await admin().put(`/v1/spaces/${spaceId}/git/webhook`, {
      provider: 'github',
      url: git.url('hooked'),
      branch: 'main',
      secret: 'a-webhook-secret-123',
    });
    expect(set.status).toBe(200);
    expect(set.body.url).toBe(`http://docs.test/hooks/git/${spaceId}`);
    expect(JSON.stringify(set.body)).not.toContain('s3cret-pass');
    const payload = JSON.stringify({ ref: 'refs/heads/main', after: commit, head_commit: { timestamp: at(1) } });
    const sign = (body: string, secret = 'a-webhook-secret-123') => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const deliver = (body: string, headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `/hooks/git/${spaceId}`,
        payload: body,
        headers: { 'content-type': 'application/json', ...headers },
      });

    expect(
      (
        await deliver(payload, {
          'x-github-event': 'push',
          'x-github-delivery': 'd-1',
          'x-hub-signature-256': sign(payload, 'wrong-secret-value'),
        })
      ).statusCode,
    ).toBe(401);
    expect((await deliver(payload, { 'x-github-event': 'push', 'x-github-delivery': 'd-1' })).statusCode).toBe(401);
    const other = JSON.stringify({ ref: 'refs/heads/dev', after: commit });
    expect(
      (await deliver(other, { 'x-github-event': 'push', 'x-github-delivery': 'd-0', 'x-hub-signature-256': sign(other) })).json(),
    ).toEqual({ status: 'ignored' });
    const ok = await deliver(payload, { 'x-github-event': 'push', 'x-github-delivery': 'd-1', 'x-hub-signature-256': sign(payload) });
    expect(ok.statusCode).toBe(202);
    const replay = await deliver(payload, { 'x-github-event': 'push', 'x-github-delivery': 'd-1', 'x-hub-signature-256': sign(payload) });
    expect(replay.json()).toEqual({ status: 'duplicate' });
    await info(spaceId, (i) => i.lastSyncedCommit === commit);
    expect(await requestStates(spaceId)).toEqual(['applied']);
    expect((await pages(spaceId)).map((p) => p.title)).toEqual(['Hooked']);

    // A delivery whose request was recorded but never reached the job service (it was down, the
    // provider got a 503 and delivers again): the redelivery is a duplicate, and sends it.
    // A GitHub delivery is known by its signature (the signed body), not by its unsigned delivery id.
    const later = JSON.stringify({ ref: 'refs/heads/main', after: commit, head_commit: { timestamp: at(2) } });
    const requestId = `hook-${createHash('sha256')
      .update(`${spaceId}\n${sign(later)}`)
      .digest('hex')
      .slice(0, 32)}`;
    await t.orm.em.fork().transactional(async (tx) => {
      await recordDelivery(tx, spaceId, sign(later));
      await insertGitSyncRequest(tx, {
        id: requestId,
        spaceId,
        kind: 'import',
        requestedAt: new Date(at(2)),
        params: { url: git.url('hooked', false), ref: 'refs/heads/main' },
        credentials: null,
        requestedBy: null,
      });
    });
    const again = await deliver(later, { 'x-github-event': 'push', 'x-github-delivery': 'd-2', 'x-hub-signature-256': sign(later) });
    expect(again.json()).toEqual({ status: 'duplicate' });
    // It runs (and fails: this request carries no credentials), rather than staying queued for good.
    await eventually(async () => ((await requestStates(spaceId))[1] !== 'queued' ? true : undefined), 60_000);
    expect(await requestStates(spaceId)).toEqual(['applied', 'failed']);
  });

  it('verifies GitLab tokens', async () => {
    const commit = git.commit('gl', { 'README.md': '# Lab\n' });
    const spaceId = await newSpace();
    expect(
      (
        await admin().put(`/v1/spaces/${spaceId}/git/webhook`, {
          provider: 'gitlab',
          url: git.url('gl'),
          branch: 'main',
          secret: 'gitlab-token-0123456',
        })
      ).status,
    ).toBe(200);
    const payload = JSON.stringify({ ref: 'refs/heads/main', checkout_sha: commit, commits: [{ timestamp: at(1) }] });
    const deliver = (token: string) =>
      t.app.inject({
        method: 'POST',
        url: `/hooks/git/${spaceId}`,
        payload,
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': 'Push Hook',
          'x-gitlab-token': token,
          'x-gitlab-event-uuid': 'u-1',
        },
      });
    expect((await deliver('not-the-token-at-all')).statusCode).toBe(401);
    expect((await deliver('gitlab-token-0123456')).statusCode).toBe(202);
    await info(spaceId, (i) => i.lastSyncedCommit === commit);
  });

  it('answers 404 for a space without a webhook', async () => {
    const spaceId = await newSpace();
    const res = await t.app.inject({
      method: 'POST',
      url: `/hooks/git/${spaceId}`,
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 404, message: expect.any(String) } });
  });
});

describe('access and validation', () => {
  it('answers 400, 401, 403 and 404 with the error shape', async () => {
    const spaceId = await newSpace();
    const body = { url: git.url('sample'), ref: 'refs/heads/main' };
    const bad = await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('sample') });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 400, message: expect.any(String) } });
    expect((await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: 'ftp://x/y', ref: 'refs/heads/main' })).status).toBe(400);
    expect((await admin().post(`/v1/spaces/${spaceId}/git/export`, body)).status).toBe(400);
    expect(
      (await admin().put(`/v1/spaces/${spaceId}/git/webhook`, { provider: 'github', url: git.url('x'), branch: 'main', secret: 'short' }))
        .status,
    ).toBe(400);

    const anonymous = await t.app.inject({ method: 'POST', url: `/v1/spaces/${spaceId}/git/import`, payload: body });
    expect(anonymous.statusCode).toBe(401);

    const read = await org.members.read.api.post(`/v1/spaces/${spaceId}/git/import`, body);
    expect(read.status).toBe(403);
    expect(read.body.error.code).toBe(403);
    expect((await org.members.comment.api.post(`/v1/spaces/${spaceId}/git/export`, { ...body, commitMessage: 'x' })).status).toBe(403);
    expect(
      (
        await org.members.edit.api.put(`/v1/spaces/${spaceId}/git/webhook`, {
          provider: 'github',
          url: git.url('x'),
          branch: 'main',
          secret: '0123456789abcdef',
        })
      ).status,
    ).toBe(403);

    const outsider = other.members.admin.api;
    expect((await outsider.post(`/v1/spaces/${spaceId}/git/import`, body)).status).toBe(404);
    expect((await outsider.get(`/v1/spaces/${spaceId}/git/info`)).status).toBe(404);
    expect((await admin().get(`/v1/spaces/${spaceId}/git/info`)).status).toBe(404);
  });
});
