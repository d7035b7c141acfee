import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { startImportFixtures, zipOf, type ImportFixtures } from '../support/import-fixtures.ts';

/**
 * Markdown whose cost is unbounded, as an attacker's probe sent it: nested brackets (quadratic in
 * micromark's footnote tokenizer: 60 KB took 13.9 s), a 12,000-branch elif chain (each branch
 * copied the negation of every earlier one: 2.6 GB and a 500), a 500 × 900 table, a 2,000-level
 * list, 10,000 nested quotes and 50,000 nested `<div>` (stack overflow: 500), a deep JSON
 * document and a 40 KB nested-bracket comment. Written through the API, each is refused with a
 * 400 naming its limit; arriving by content import or Git Sync, each page becomes text and the
 * import completes with the rest of its pages.
 */

const PROBES: Record<string, { markdown: string; limit: string }> = {
  brackets: { markdown: '['.repeat(30_000) + 'x' + ']'.repeat(30_000), limit: 'MAX_BRACKET_NESTING' },
  emphasis: { markdown: '**'.repeat(6_000) + 'x' + '**'.repeat(6_000) + '\n', limit: 'MAX_EMPHASIS_NESTING' },
  elif: {
    markdown:
      '{% if visitor.claims.unsigned.b0 %}\nB0\n' +
      Array.from({ length: 11_999 }, (_, i) => `{% elif visitor.claims.unsigned.b${i + 1} %}\nB\n`).join('') +
      '{% endif %}\n',
    limit: 'MAX_CONDITION_BRANCHES',
  },
  table: {
    markdown: [`|${'h|'.repeat(900)}`, `|${'-|'.repeat(900)}`, ...Array.from({ length: 500 }, () => `|${'x|'.repeat(900)}`)].join('\n'),
    limit: 'MAX_TABLE_COLUMNS',
  },
  list: { markdown: '- '.repeat(2_000) + 'deep\n', limit: 'MAX_NESTING' },
  quotes: { markdown: '>'.repeat(10_000) + ' deep\n', limit: 'MAX_NESTING' },
  divs: { markdown: '<div>'.repeat(50_000) + 'x\n', limit: 'MAX_HTML_NESTING' },
};

let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
let git: GitServer;

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Hostile markdown org');
  fx = await startImportFixtures();
  git = await startGitServer();
}, 60_000);
afterAll(async () => {
  await git?.close();
  await fx?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;

async function newSpace(title = 'Hostile markdown') {
  const res = await admin().post(`/v1/orgs/${org.id}/spaces`, { title });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

async function pages(spaceId: string) {
  const res = await admin().get(`/v1/spaces/${spaceId}/content/pages`);
  expect(res.status).toBe(200);
  const all: any[] = [];
  const walk = (list: any[]) => list.forEach((p) => (all.push(p), walk(p.pages ?? [])));
  walk(res.body.pages);
  return all;
}

/** A page read back as markdown and as a document: bounded in size, the probe kept as text. */
async function expectTextPage(spaceId: string, page: any, limit: string) {
  const markdown = await admin().get(`/v1/spaces/${spaceId}/content/page/${page.id}`);
  expect(markdown.status).toBe(200);
  const text: string = markdown.body.markdown;
  // (Booleans: a failure must not print a megabyte of probe.)
  expect({ limit, named: text.slice(0, 300).includes(limit) }).toEqual({ limit, named: true });
  expect(text.startsWith('This page is kept as text')).toBe(true);
  expect(/\n`{3,}text\n/.test(text)).toBe(true);
  const document = await admin().get(`/v1/spaces/${spaceId}/content/page/${page.id}?format=document`);
  expect(document.status).toBe(200);
  const size = JSON.stringify(document.body).length;
  // The probe as one code block, one code line a line: linear in its size and lines, never the
  // 22.8 MB (elif) or 115 MB (table) it once made.
  const lines = text.split('\n').length;
  expect(size).toBeLessThan(2 * text.length + 200 * lines + 10_000);
  expect(JSON.stringify(document.body.document.nodes.map((n: any) => n.type))).toBe('["paragraph","code"]');
}

describe('hostile markdown written through the API', () => {
  it('refuses each probe in insert_page and update_page with a 400 naming the limit', async () => {
    const space = await newSpace();
    const cr = await admin().post(`/v1/spaces/${space.id}/change-requests`, {});
    expect(cr.status).toBe(201);
    const content = `/v1/spaces/${space.id}/change-requests/${cr.body.id}/content?compat=false`;
    const ok = await admin().post(content, {
      changes: [{ operation: 'insert_page', title: 'Fine', document: { markdown: '# Fine\n\nok\n' } }],
    });
    expect(ok.status).toBe(200);
    const pageId = ok.body.changes[0].page.id;
    for (const [name, probe] of Object.entries(PROBES)) {
      for (const change of [
        { operation: 'insert_page', title: name, document: { markdown: probe.markdown } },
        { operation: 'update_page', page: pageId, document: { markdown: probe.markdown } },
      ]) {
        const res = await admin().post(content, { changes: [change] });
        expect({ name, status: res.status }).toEqual({ name, status: 400 });
        expect(res.body.error.code).toBe(400);
        expect(res.body.error.message).toContain(probe.limit);
        expect(res.body.error.message).toMatch(/^changes\[0\]: document\.markdown: /);
      }
    }
    // Nothing was written: the change request still has its one fine page.
    const list = await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/content/pages`);
    expect(list.body.pages.map((p: any) => p.title)).toEqual(expect.arrayContaining(['Fine']));
    expect(list.body.pages.some((p: any) => Object.keys(PROBES).includes(p.title))).toBe(false);
  });

  it('refuses a 40 KB nested-bracket comment and a deep JSON document with a 400 naming the limit', async () => {
    const space = await newSpace();
    const brackets = '['.repeat(20_000) + ']'.repeat(20_000);
    expect(brackets.length).toBe(40_000);
    const comment = await admin().post(`/v1/spaces/${space.id}/comments`, { body: { markdown: brackets } });
    expect(comment.status).toBe(400);
    expect(comment.body.error.message).toContain('MAX_BRACKET_NESTING');

    // 20,000 nested quotes as JSON text (too deep for JSON.stringify here, as it was for the converter).
    const leaf = '{"object":"text","leaves":[{"object":"leaf","text":"x","marks":[]}]}';
    const deep = '{"object":"block","type":"blockquote","nodes":['.repeat(20_000) + leaf + ']}'.repeat(20_000);
    const document = await t.app.inject({
      method: 'POST',
      url: `/v1/spaces/${space.id}/comments`,
      headers: { authorization: `Bearer ${org.members.admin.token}`, 'content-type': 'application/json' },
      payload: `{"body":{"document":{"nodes":[${deep}]}}}`,
    });
    expect(document.statusCode).toBe(400);
    // Refused before conversion, by the request's own depth bound or by the document's.
    expect(JSON.parse(document.body)).toEqual({ error: { code: 400, message: expect.stringMatching(/deep/) } });

    // A document whose markdown is past a limit (a table of 900 columns) is refused for it.
    const wide = {
      object: 'block',
      type: 'table',
      data: {
        view: { type: 'grid', columns: Array.from({ length: 900 }, (_, i) => `c${i}`) },
        definition: Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`c${i}`, { id: `c${i}`, title: 'h', type: 'text' }])),
        records: { r: { orderIndex: 'a0', values: {} } },
      },
      isVoid: true,
    };
    const table = await admin().post(`/v1/spaces/${space.id}/comments`, { body: { document: { nodes: [wide] } } });
    expect(table.status).toBe(400);
    expect(table.body.error.message).toContain('MAX_TABLE_COLUMNS');

    // A reply too.
    const fine = await admin().post(`/v1/spaces/${space.id}/comments`, { body: { markdown: 'fine [link](x)' } });
    expect([200, 201]).toContain(fine.status);
    const reply = await admin().post(`/v1/spaces/${space.id}/comments/${fine.body.id}/replies`, { body: { markdown: brackets } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain('MAX_BRACKET_NESTING');
  });
});

describe('hostile markdown arriving by import', () => {
  const files = () => ({
    'SUMMARY.md': [
      '# Table of contents',
      '',
      '* [Welcome](README.md)',
      ...Object.keys(PROBES).map((name) => `* [${name}](${name}.md)`),
      '',
    ].join('\n'),
    'README.md': '# Welcome\n\nStill here.\n',
    ...Object.fromEntries(Object.entries(PROBES).map(([name, probe]) => [`${name}.md`, probe.markdown])),
  });

  it('content import: a zip of probe pages completes, each probe page kept as text with the limit named', async () => {
    fx.routes.set('/hostile.zip', { type: 'application/zip', body: zipOf(files()) });
    const space = await newSpace('Imported');
    const res = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'zip', url: `${fx.base}/hostile.zip` });
    expect(res.status).toBe(201);
    const all = await pages(space.id);
    expect(all.map((p) => p.title).sort()).toEqual(['Welcome', ...Object.keys(PROBES)].sort());
    for (const [name, probe] of Object.entries(PROBES))
      await expectTextPage(
        space.id,
        all.find((p) => p.title === name),
        probe.limit,
      );
  });

  it('content import: one probe markdown file becomes a text page', async () => {
    fx.routes.set('/brackets.md', { type: 'text/markdown', body: PROBES.brackets.markdown });
    const space = await newSpace('One file');
    const res = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'markdown', url: `${fx.base}/brackets.md` });
    expect(res.status).toBe(201);
    const [page] = await pages(space.id);
    await expectTextPage(space.id, page, 'MAX_BRACKET_NESTING');
  });

  it('Git Sync: a repository of probe pages imports, each probe page kept as text', async () => {
    const commit = git.commit('hostile', files(), { message: 'Hostile pages' });
    const space = await newSpace('Synced');
    const res = await admin().post(`/v1/spaces/${space.id}/git/import`, {
      url: git.url('hostile'),
      ref: 'refs/heads/main',
      timestamp: new Date().toISOString(),
    });
    expect(res.status).toBe(204);
    const info = await eventually(async () => {
      const r = await admin().get(`/v1/spaces/${space.id}/git/info`);
      return r.status === 200 && r.body.lastSyncedCommit === commit ? r.body : undefined;
    }, 120_000);
    expect(info.status).toBe('ok');
    const all = await pages(space.id);
    expect(all.map((p) => p.title).sort()).toEqual(['Welcome', ...Object.keys(PROBES)].sort());
    for (const [name, probe] of Object.entries(PROBES))
      await expectTextPage(
        space.id,
        all.find((p) => p.title === name),
        probe.limit,
      );
  });
});
