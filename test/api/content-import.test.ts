import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { redactUrl } from '../../src/lib/guarded-fetch.ts';
import { contentImportWorkflowId } from '../../src/temporal/content-import.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import {
  docxOf,
  GIT_PASSWORD,
  GIT_USER,
  gitRepository,
  PNG,
  startImportFixtures,
  zipOf,
  type ImportFixtures,
} from '../support/import-fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let fx: ImportFixtures;

const html = (title: string, body: string) => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>${title} | Site</title></head><body><nav><a href="/site/">Home</a> <a href="/site/guide/">Guide</a></nav><main>${body}</main><footer>© Site</footer></body></html>`,
});

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Import org');
  other = await createTestOrg(t, 'Elsewhere');
  fx = await startImportFixtures();
  const r = fx.routes;
  r.set('/docs/intro.md', {
    type: 'text/markdown',
    body: '# Introduction\n\nRead the [guide](guide.md) and see ![logo](img/logo.png).\n\n```sh\nnpm install\n```\n',
  });
  r.set(
    '/docs/page.html',
    html(
      'Ignored',
      '<h1>HTML page</h1><p>Some <strong>bold</strong> text and a <a href="other.html">link</a>.</p><table><tr><th>A</th></tr><tr><td>1</td></tr></table><script>alert(1)</script>',
    ),
  );
  r.set('/files/bundle.zip', {
    type: 'application/zip',
    body: zipOf({
      'handbook/SUMMARY.md':
        '# Table of contents\n\n* [Welcome](README.md)\n* [Setup](setup/README.md)\n  * [Install](setup/install.md)\n\n## Reference\n\n* [API](reference/api.html)\n* Unlinked entry\n',
      'handbook/README.md': '# Welcome\n\nStart with [installing](setup/install.md#steps).\n',
      'handbook/setup/README.md':
        '---\ndescription: Getting ready\n---\n# Setup\n\nSee ![diagram](../.gitbook/assets/diagram%20one.png).\n',
      'handbook/setup/install.md': '# Install\n\n## Steps\n\n![shot](./shot.png)\n\nBack to [welcome](../README.md).\n',
      'handbook/setup/shot.png': PNG,
      'handbook/.gitbook/assets/diagram one.png': PNG,
      'handbook/.gitbook/assets/unused.png': PNG,
      'handbook/reference/api.html': '<html><body><h1>API</h1><p>Endpoints <a href="../setup/install.md">install</a>.</p></body></html>',
    }),
  });
  r.set('/files/folders.zip', {
    type: 'application/zip',
    body: zipOf({
      'README.md': '# Home\n\nHello.\n',
      'b-topic.md': '# Topic B\n',
      'a-topic.md': '# Topic A\n',
      'guides/first.md': '# First guide\n',
    }),
  });
  r.set('/files/report.docx', {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    body: docxOf({ title: 'Quarterly report', paragraphs: ['Bold opening', 'Second paragraph.'], image: PNG }),
  });
  r.set('/files/not-a.zip', { type: 'application/zip', body: 'this is not a zip archive' });
  r.set(
    '/site/',
    html(
      'Home',
      '<h1>Site home</h1><p>Go to the <a href="guide/">guide</a>, the <a href="guide/advanced.html#top">advanced part</a> or <a href="https://elsewhere.example/x">elsewhere</a>.</p><img src="/site/logo.png" alt="Logo">',
    ),
  );
  r.set('/site/logo.png', { type: 'image/png', body: PNG });
  r.set(
    '/many/',
    html('Many', `<h1>Many pages</h1>${Array.from({ length: 120 }, (_, i) => `<a href="p${i + 1}.html">p${i + 1}</a>`).join(' ')}`),
  );
  for (let i = 1; i <= 120; i++) r.set(`/many/p${i}.html`, html(`p${i}`, `<h1>Page ${i}</h1><p>Text ${i}.</p>`));
  r.set('/moved/project.wiki.git/info/refs', {
    type: 'text/plain',
    body: '',
    status: 302,
    headers: { location: '/git/project.wiki.git/info/refs?service=git-upload-pack' },
  });
  r.set('/site/guide/', html('Guide', '<h1>Guide</h1><p>Back <a href="../">home</a>. Next: <a href="advanced.html">advanced</a>.</p>'));
  r.set('/site/guide/advanced.html', html('Advanced', '<h1>Advanced</h1><p>Deep content.</p><a href="/site/missing.html">missing</a>'));
  r.set('/slow/', {
    ...html('Slow', '<h1>Slow home</h1><a href="/slow/a.html">a</a> <a href="/slow/b.html">b</a> <a href="/slow/c.html">c</a>'),
    delayMs: 300,
  });
  for (const name of ['a', 'b', 'c']) r.set(`/slow/${name}.html`, { ...html(name, `<h1>Slow ${name}</h1>`), delayMs: 600 });
  gitRepository(fx.gitRoot, 'project.wiki', {
    'Home.md': '# Welcome to the wiki\n\nSee [[Install Guide]] or [[the FAQ|FAQ]].\n\n![logo](images/logo.png)\n',
    'Install-Guide.md': 'Run the installer. Back to [[Home]].\n',
    'FAQ.md': 'Questions and answers.\n',
    '_Sidebar.md': '* [[Home]]\n',
    'images/logo.png': PNG,
  });
});
afterAll(async () => {
  await fx?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;

async function newSpace() {
  const res = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Imports' });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

async function pages(spaceId: string, crId?: string) {
  const res = await admin().get(
    crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content/pages` : `/v1/spaces/${spaceId}/content/pages`,
  );
  expect(res.status).toBe(200);
  return res.body.pages as any[];
}

async function files(spaceId: string) {
  const res = await admin().get(`/v1/spaces/${spaceId}/content/files`);
  expect(res.status).toBe(200);
  return res.body.items as any[];
}

const titles = (tree: any[]): any[] => tree.map((p) => (p.pages.length > 0 ? [p.title, titles(p.pages)] : p.title));

async function importInto(spaceId: string, body: unknown, crId?: string, api = admin()) {
  const path = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content/import` : `/v1/spaces/${spaceId}/content/import`;
  return api.post(path, body);
}

describe('content import into a space', () => {
  it('imports a markdown file as the current revision, replacing the empty first page', async () => {
    const space = await newSpace();
    const started = Date.now();
    const res = await importInto(space.id, { source: 'markdown', url: `${fx.base}/docs/intro.md` });
    expect(res.status).toBe(201);
    // The page; its image (same origin, missing on the server) was found but not imported.
    expect(res.body).toEqual({ revision: expect.any(String), importedResources: 1, totalResources: 2 });
    console.log(`markdown import: ${Date.now() - started} ms`);
    const current = await admin().get(`/v1/spaces/${space.id}`);
    expect(current.body.revision).toBe(res.body.revision);
    const tree = await pages(space.id);
    expect(titles(tree)).toEqual(['Introduction']);
    // Relative targets of a fetched file are resolved against its URL.
    expect(tree[0].markdown).toContain(`[guide](${fx.base}/docs/guide.md)`);
    expect(tree[0].markdown).toContain(`![logo](${fx.base}/docs/img/logo.png)`);
    expect(tree[0].markdown).toContain('```sh\nnpm install\n```');
    // The search index follows the new revision.
    const search = await admin().get(`/v1/spaces/${space.id}/search?query=introduction`);
    expect(search.status).toBe(200);
    expect(search.body.items.length).toBeGreaterThan(0);
  });

  it('imports an HTML page through unified: main content only, as markdown', async () => {
    const space = await newSpace();
    const res = await importInto(space.id, { source: 'html', url: `${fx.base}/docs/page.html` });
    expect(res.status).toBe(201);
    const [page] = await pages(space.id);
    expect(page.title).toBe('HTML page');
    expect(page.markdown).toContain('Some **bold** text');
    expect(page.markdown).toContain(`[link](${fx.base}/docs/other.html)`);
    expect(page.markdown).toContain('| A |');
    expect(page.markdown).not.toMatch(/alert|© Site|Guide/);
  });

  it('imports a zip following its SUMMARY.md, with its images as files and links between pages', async () => {
    const space = await newSpace();
    const started = Date.now();
    const res = await importInto(space.id, { source: 'zip', url: `${fx.base}/files/bundle.zip` });
    expect(res.status).toBe(201);
    console.log(`zip import: ${Date.now() - started} ms`);
    // 6 pages (with the group and the unlinked entry), the image a page links to and the 2 files under .gitbook/assets.
    expect(res.body).toMatchObject({ importedResources: 9, totalResources: 9 });
    const tree = await pages(space.id);
    expect(titles(tree)).toEqual(['Welcome', ['Setup', ['Install']], ['Reference', ['API', 'Unlinked entry']]]);
    expect(tree[2].type).toBe('group');
    expect(tree[2].pages[0].slug).toBe('api');
    expect(tree[1].description).toBe('Getting ready');
    const install = tree[1].pages[0];
    expect(tree[0].markdown).toContain(`[installing](gitbook://page/${install.id}#steps)`);
    expect(install.markdown).toMatch(/!\[shot\]\(gitbook:\/\/file\/\w+\)/);
    expect(install.markdown).toContain(`[welcome](gitbook://page/${tree[0].id})`);
    expect(tree[2].pages[0].markdown).toContain(`[install](gitbook://page/${install.id})`);
    expect((await files(space.id)).map((f) => f.name).sort()).toEqual(['diagram one.png', 'shot.png', 'unused.png']);
    for (const page of [tree[0], tree[1], install]) {
      const links = await admin().get(`/v1/spaces/${space.id}/content/page/${page.id}/links`);
      expect(links.status).toBe(200);
      expect(links.body.items.length).toBeGreaterThan(0);
      expect(links.body.items.filter((l: any) => l.status === 'broken')).toEqual([]);
    }
  });

  it('imports a zip without SUMMARY.md by its folders, README first', async () => {
    const space = await newSpace();
    const res = await importInto(space.id, { source: 'zip', url: `${fx.base}/files/folders.zip` });
    expect(res.status).toBe(201);
    expect(titles(await pages(space.id))).toEqual(['Home', 'Topic A', 'Topic B', ['guides', ['First guide']]]);
  });

  it('imports a docx with its images stored as files', async () => {
    const space = await newSpace();
    const res = await importInto(space.id, { source: 'docx', url: `${fx.base}/files/report.docx` });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ importedResources: 2, totalResources: 2 });
    const [page] = await pages(space.id);
    expect(page.title).toBe('Quarterly report');
    expect(page.markdown).toContain('**Bold opening**');
    const [file] = await files(space.id);
    expect(page.markdown).toContain(`![A dot](gitbook://file/${file.id})`);
    expect(file).toMatchObject({ name: 'image-1.png', contentType: 'image/png', size: PNG.length });
    const download = await t.app.inject({
      method: 'GET',
      url: new URL(file.downloadURL).pathname,
      headers: { authorization: `Bearer ${org.members.admin.token}` },
    });
    expect(download.statusCode).toBe(200);
    expect(Buffer.compare(download.rawPayload, PNG)).toBe(0);
  });

  it('crawls a website on its origin into a page tree, links between pages rewritten', async () => {
    const space = await newSpace();
    const started = Date.now();
    const res = await importInto(space.id, { source: 'website', url: `${fx.base}/site/` });
    expect(res.status).toBe(201);
    console.log(`website import (3 pages): ${Date.now() - started} ms`);
    // Home, guide, advanced and the logo; the missing page fails and is left out.
    expect(res.body).toMatchObject({ importedResources: 4, totalResources: 4 });
    const tree = await pages(space.id);
    expect(titles(tree)).toEqual(['Site home', ['Guide', ['Advanced']]]);
    expect(tree[0].markdown).toContain(`[guide](gitbook://page/${tree[1].id})`);
    expect(tree[0].markdown).toContain(`[advanced part](gitbook://page/${tree[1].pages[0].id}#top)`);
    expect(tree[1].pages[0].markdown).toContain(`[missing](${fx.base}/site/missing.html)`);
    expect(tree[0].markdown).toContain('[elsewhere](https://elsewhere.example/x)');
    expect(tree[0].markdown).not.toContain('© Site');
    const [logo] = await files(space.id);
    expect(logo).toMatchObject({ name: 'logo.png', contentType: 'image/png', size: PNG.length });
    expect(tree[0].markdown).toContain(`![Logo](gitbook://file/${logo.id})`);
  });

  it('stops a crawl at CONTENT_IMPORT_MAX_PAGES (100 by default), counting what it left', async () => {
    const space = await newSpace();
    const started = Date.now();
    const res = await importInto(space.id, { source: 'website', url: `${fx.base}/many/` });
    expect(res.status).toBe(201);
    console.log(`website import (100 pages): ${Date.now() - started} ms`);
    expect(res.body).toMatchObject({ importedResources: 100, totalResources: 121 });
    expect(await pages(space.id)).toHaveLength(100);
  });

  it('clones a GitHub-style wiki over smart HTTP with basic auth, without keeping the password', async () => {
    const space = await newSpace();
    const url = `http://${GIT_USER}:${encodeURIComponent(GIT_PASSWORD)}@127.0.0.1:${fx.port}/git/project/wiki`;
    const started = Date.now();
    const res = await importInto(space.id, { source: 'github-wiki', url });
    expect(res.status).toBe(201);
    console.log(`github-wiki import: ${Date.now() - started} ms`);
    expect(res.body).toMatchObject({ importedResources: 4, totalResources: 4 });
    const tree = await pages(space.id);
    expect(titles(tree)).toEqual(['Welcome to the wiki', 'FAQ', 'Install Guide']);
    expect(tree[0].markdown).toContain(`[Install Guide](gitbook://page/${tree[2].id})`);
    expect(tree[0].markdown).toContain(`[the FAQ](gitbook://page/${tree[1].id})`);
    expect(tree[0].markdown).toMatch(/!\[logo\]\(gitbook:\/\/file\/\w+\)/);
    expect(tree[2].markdown).toContain(`[Home](gitbook://page/${tree[0].id})`);
    // The password never reaches the workflow history.
    const workflowId = contentImportWorkflowId({ spaceId: space.id, changeRequestId: null, source: 'github-wiki', url: redactUrl(url) });
    const history = JSON.stringify(await t.temporal.workflow.getHandle(workflowId).fetchHistory());
    expect(history).toContain('github-wiki');
    expect(history).not.toContain(GIT_PASSWORD);
    expect(history).not.toContain(encodeURIComponent(GIT_PASSWORD));
    expect(history).not.toContain(Buffer.from(`${GIT_USER}:${GIT_PASSWORD}`).toString('base64'));
  });

  it('adds to existing content rather than replacing it', async () => {
    const space = await newSpace();
    expect((await importInto(space.id, { source: 'markdown', url: `${fx.base}/docs/intro.md` })).status).toBe(201);
    expect((await importInto(space.id, { source: 'markdown', url: `${fx.base}/docs/intro.md` })).status).toBe(201);
    const tree = await pages(space.id);
    expect(tree.map((p) => p.slug)).toEqual(['introduction', 'introduction-2']);
  });
});

describe('content import into a change request', () => {
  it("becomes the change request's revision; the space is unchanged until merged", async () => {
    const space = await newSpace();
    const cr = await admin().post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Import' });
    expect(cr.status).toBe(201);
    const res = await importInto(space.id, { source: 'zip', url: `${fx.base}/files/folders.zip` }, cr.body.id);
    expect(res.status).toBe(201);
    const after = await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.body.id}`);
    expect(after.body.revision).toBe(res.body.revision);
    expect(titles(await pages(space.id, cr.body.id))).toEqual(['Home', 'Topic A', 'Topic B', ['guides', ['First guide']]]);
    expect(titles(await pages(space.id))).toEqual(['Untitled']);
    // By number too.
    const byNumber = await importInto(space.id, { source: 'docx', url: `${fx.base}/files/report.docx` }, String(cr.body.number));
    expect(byNumber.status).toBe(201);
    expect(titles(await pages(space.id, cr.body.id))).toContain('Quarterly report');
    const merged = await admin().post(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/merge`);
    expect(merged.status).toBe(200);
    expect(titles(await pages(space.id))).toContain('Quarterly report');
    // A merged change request takes no more imports.
    const late = await importInto(space.id, { source: 'markdown', url: `${fx.base}/docs/intro.md` }, cr.body.id);
    expect(late.status).toBe(409);
  });
});

describe('the API document', () => {
  it('lists both import operations', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const paths = JSON.parse(doc.body).paths;
    expect(paths['/v1/spaces/{spaceId}/content/import'].post.responses['201']).toBeDefined();
    expect(
      paths['/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import'].post.parameters.map((p: any) => p.name).sort(),
    ).toEqual(['changeRequestId', 'spaceId']);
  });
});

describe('refusals', () => {
  it('validates the body (400 with the error shape)', async () => {
    const space = await newSpace();
    for (const body of [
      { source: 'markdown' },
      { url: `${fx.base}/docs/intro.md` },
      { source: 'markdown', url: 'not a url' },
      { source: 'markdown', url: 'ftp://example.com/x.md' },
    ]) {
      const res = await importInto(space.id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } });
    }
  });

  it('names unknown sources and those needing third-party connectors', async () => {
    const space = await newSpace();
    const unknown = await importInto(space.id, { source: 'dropbox', url: `${fx.base}/x` });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/Unknown import source "dropbox"/);
    for (const source of ['confluence', 'notion', 'google-docs']) {
      const res = await importInto(space.id, { source, url: 'https://example.com/x' });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/third-party connector/);
    }
  });

  it('answers 401 without a token, 403 below edit, 404 across organizations', async () => {
    const space = await newSpace();
    const body = { source: 'markdown', url: `${fx.base}/docs/intro.md` };
    const anonymous = await t.app.inject({ method: 'POST', url: `/v1/spaces/${space.id}/content/import`, payload: body });
    expect(anonymous.statusCode).toBe(401);
    for (const role of ['comment', 'read'] as const)
      expect((await importInto(space.id, body, undefined, org.members[role].api)).status).toBe(403);
    expect((await importInto(space.id, body, undefined, other.members.admin.api)).status).toBe(404);
    expect((await importInto(space.id, body, 'nope')).status).toBe(404);
    expect((await importInto(space.id, body, undefined, org.members.edit.api)).status).toBe(201);
    const locked = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Locked', editMode: 'locked' });
    const refused = await importInto(locked.body.id, body);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/locked/);
  });

  it('refuses private addresses off the allow list with a clear 400, never a 5xx', async () => {
    const space = await newSpace();
    const before = (await admin().get(`/v1/spaces/${space.id}`)).body.revision;
    const local = await importInto(space.id, { source: 'markdown', url: `http://localhost:${fx.port}/docs/intro.md` });
    expect(local.status).toBe(400);
    expect(local.body.error.message).toMatch(/ADDRESS_NOT_ALLOWED/);
    const metadata = await importInto(space.id, { source: 'website', url: 'http://169.254.169.254/latest/meta-data/' });
    expect(metadata.status).toBe(400);
    expect(metadata.body.error.message).toMatch(/ADDRESS_NOT_ALLOWED/);
    const wiki = await importInto(space.id, { source: 'github-wiki', url: `http://localhost:${fx.port}/git/project/wiki` });
    expect(wiki.status).toBe(400);
    expect(wiki.body.error.message).toMatch(/ADDRESS_NOT_ALLOWED/);
    expect((await admin().get(`/v1/spaces/${space.id}`)).body.revision).toBe(before);
  });

  it('reports unreadable sources as 400: a 404, a broken archive, a wiki without credentials', async () => {
    const space = await newSpace();
    const missing = await importInto(space.id, { source: 'markdown', url: `${fx.base}/docs/missing.md` });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/HTTP_ERROR.*404/);
    const broken = await importInto(space.id, { source: 'zip', url: `${fx.base}/files/not-a.zip` });
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toMatch(/INVALID_ARCHIVE/);
    const denied = await importInto(space.id, { source: 'github-wiki', url: `${fx.base}/git/project/wiki` });
    expect(denied.status).toBe(400);
    expect(denied.body.error.message).toMatch(/CLONE_FAILED/);
    // git follows no redirect, even to an allowed host.
    const served = fx.hits.filter((h) => h.startsWith('/git/')).length;
    const moved = await importInto(space.id, {
      source: 'github-wiki',
      url: `http://${GIT_USER}:${encodeURIComponent(GIT_PASSWORD)}@127.0.0.1:${fx.port}/moved/project/wiki`,
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toMatch(/CLONE_FAILED/);
    expect(moved.body.error.message).not.toContain(GIT_PASSWORD);
    expect(fx.hits.filter((h) => h.startsWith('/git/')).length).toBe(served);
  });
});

describe('waiting for an import', () => {
  it('answers 503 when the import outlasts the wait; asking again joins the same run', async () => {
    const impatient = await startTestApp({ CONTENT_IMPORT_WAIT: '200ms' });
    try {
      const space = await newSpace();
      const body = { source: 'website', url: `${fx.base}/slow/` };
      const first = await impatient.app.inject({
        method: 'POST',
        url: `/v1/spaces/${space.id}/content/import`,
        headers: { authorization: `Bearer ${org.members.admin.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      expect(first.statusCode).toBe(503);
      expect(JSON.parse(first.body).error.message).toMatch(/send the same request again/);
      const second = await importInto(space.id, body);
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ importedResources: 4, totalResources: 4 });
      // One run, one revision: the pages are there once.
      expect(titles(await pages(space.id))).toEqual(['Slow home', 'Slow a', 'Slow b', 'Slow c']);
    } finally {
      await impatient.close();
    }
  });
});
