import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { PNG_2X3, sql } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { loadSecretsKey } from '../../src/lib/secrets.ts';
import { deriveSigningKey, signedUrl } from '../../src/lib/signed-urls.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../../src/workflows/search-attributes.ts';
import { pdfActivities, type PdfExportOutcome } from '../../src/activities/pdf-export.ts';
import { LocalBlobStore } from '../../src/lib/blob-store.ts';
import { closePdfPrinter } from '../../src/lib/pdf-printer.ts';

/**
 * PDF export of a change request: printed by the pdf-export workflow on the test worker with the
 * system's Chromium, read back with poppler's pdftotext / pdfinfo / pdfimages.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let scratch: string;
let signingKey: Buffer;
let space: { id: string };
let cr: { id: string; number: number };
const ids: Record<string, string> = {};

const admin = () => org.members.admin.api;
const pdfPath = (query = '') => `/v1/spaces/${space.id}/change-requests/${cr.id}/pdf${query}`;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'PDF org');
  other = await createTestOrg(t, 'PDF elsewhere');
  scratch = mkdtempSync(join(tmpdir(), 'pdf-test-'));
  signingKey = deriveSigningKey(await loadSecretsKey(t.config), 'pdf');

  space = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Handbook' })).body;
  cr = (await admin().post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Release notes "v2"' })).body;
  const root = (await admin().get(`/v1/spaces/${space.id}/content/pages`)).body.pages[0];
  const edit = await admin().post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
    changes: [
      { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
      {
        operation: 'update_page',
        page: root.id,
        title: 'Welcome aboard',
        document: {
          markdown:
            'Hello there.\n\n## Introduction\n\nA picture: ![Dot](dot.png) and a remote one ![Remote](https://img.example/r.png).\n\n<script>alert("boom")</script>\n',
        },
      },
      {
        operation: 'insert_page',
        ref: 'guide',
        title: 'Installation guide',
        document: { markdown: '## Steps\n\n1. Download\n2. Run `install.sh`\n' },
      },
      {
        operation: 'insert_page',
        ref: 'linux',
        into: 'guide',
        title: 'Linux specifics',
        document: { markdown: '| Distro | Package |\n|---|---|\n| Debian | deb |\n' },
      },
      { operation: 'insert_page', ref: 'reference', title: 'Reference manual', document: { markdown: '```sh\nnpm test\n```\n' } },
    ],
  });
  expect(edit.status).toBe(200);
  ids.root = root.id;
  for (const change of edit.body.changes as { ref?: string; page: { id: string } }[]) if (change.ref) ids[change.ref] = change.page.id;
});
afterAll(async () => {
  await closePdfPrinter();
  rmSync(scratch, { recursive: true, force: true });
  await t.close();
});

/** The path and query of a returned URL (the test app is reached through Fastify's injector). */
function local(url: string): string {
  const parsed = new URL(url);
  expect(parsed.origin).toBe(t.config.publicUrl);
  return parsed.pathname + parsed.search;
}

async function download(url: string) {
  const res = await t.app.inject({ method: 'GET', url: local(url) });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, json: () => JSON.parse(res.body) };
}

let files = 0;
function poppler(tool: 'pdftotext' | 'pdfinfo' | 'pdfimages', bytes: Buffer, args: string[] = []): string {
  const file = join(scratch, `${++files}.pdf`);
  writeFileSync(file, bytes);
  return execFileSync(tool, [...args, file, ...(tool === 'pdftotext' ? ['-'] : [])], { encoding: 'utf8' });
}
const textOf = (bytes: Buffer) => poppler('pdftotext', bytes).replace(/\s+/g, ' ');
const pageCount = (bytes: Buffer) => Number(/^Pages:\s+(\d+)/m.exec(poppler('pdfinfo', bytes))![1]);
const shaOf = (url: string) => /\/pdf\/([0-9a-f]{64})\?/.exec(url)![1];

async function exportPdf(query = '') {
  const res = await admin().get(pdfPath(query));
  expect(res.status).toBe(200);
  expectMatchesGitBook('getChangeRequestPDF', res.body);
  return res.body.url as string;
}

describe('GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', () => {
  it('prints the whole content in tree order and answers a link that works for one hour', async () => {
    const before = Math.floor(Date.now() / 1000);
    const url = await exportPdf();
    const after = Math.floor(Date.now() / 1000);
    expect(url).toMatch(new RegExp(`^${t.config.publicUrl}/pdf/[0-9a-f]{64}\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`));
    const expires = Number(new URL(url).searchParams.get('expires'));
    expect(expires).toBeGreaterThanOrEqual(before + 3600);
    expect(expires).toBeLessThanOrEqual(after + 3600);

    const pdf = await download(url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(
      `inline; filename="Release notes _v2_.pdf"; filename*=UTF-8''Release%20notes%20%22v2%22.pdf`,
    );
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(pdf.headers['cache-control']))![1]);
    expect(maxAge).toBeGreaterThan(3500);
    expect(maxAge).toBeLessThanOrEqual(3600);
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const text = textOf(pdf.bytes);
    const titles = ['Welcome aboard', 'Installation guide', 'Linux specifics', 'Reference manual'];
    for (const title of titles) expect(text).toContain(title);
    const positions = titles.map((title) => text.indexOf(title));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const piece of [
      'Handbook · Change request #1: Release notes "v2"',
      'Introduction',
      'Download',
      'install.sh',
      'Debian',
      'npm test',
      '[image: Remote]',
    ]) {
      expect(text).toContain(piece);
    }
    expect(text).not.toContain('boom');
    // One page per sheet at least; the revision's image is inlined, the remote one is a link.
    expect(pageCount(pdf.bytes)).toBeGreaterThanOrEqual(4);
    const images = poppler('pdfimages', pdf.bytes, ['-list'])
      .trim()
      .split('\n')
      .slice(2)
      .filter((row) => /^\s*\d+\s+\d+\s+image\s/.test(row));
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^\s*\d+\s+\d+\s+image\s+2\s+3\s/);
  });

  it('reuses the stored PDF for the same revision, by id or number, and prints again after an edit', async () => {
    const first = await exportPdf();
    const again = await exportPdf();
    expect(shaOf(again)).toBe(shaOf(first));
    const byNumber = await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.number}/pdf`);
    expect(shaOf(byNumber.body.url)).toBe(shaOf(first));
    const reader = await org.members.read.api.get(pdfPath());
    expect(reader.status).toBe(200);
    expect(shaOf(reader.body.url)).toBe(shaOf(first));
    const rows = await sql(t, 'select * from pdf_export where change_request_id = ? and page_id = ?', [cr.id, '']);
    expect(rows).toHaveLength(1);

    // The workflow that printed it says what, which and who.
    const revision = (await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).body.revision as string;
    const described = await t.temporal.workflow.getHandle(`pdf-export/${space.id}/${cr.id}/${revision}`).describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.typedSearchAttributes.get(JOB_KIND)).toBe('pdf-export');
    expect(described.typedSearchAttributes.get(SPACE_ID)).toBe(space.id);
    expect(described.typedSearchAttributes.get(ORGANIZATION_ID)).toBe(org.id);
    expect(await described.memo).toMatchObject({ requestedBy: org.members.admin.userId });

    const edited = await admin().post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'insert_page', title: 'Appendix', document: { markdown: 'Late addition.' } }],
    });
    expect(edited.status).toBe(200);
    const later = await exportPdf();
    expect(shaOf(later)).not.toBe(shaOf(first));
    expect(textOf((await download(later)).bytes)).toContain('Appendix');
    // The earlier link still serves the earlier PDF until it expires.
    expect(textOf((await download(first)).bytes)).not.toContain('Appendix');
  });

  it('prints one page alone with only=true, and a page with the pages under it without', async () => {
    const whole = await download(await exportPdf());
    const onlyUrl = await exportPdf(`?only=true&page=${ids.guide}`);
    const only = await download(onlyUrl);
    expect(only.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const onlyText = textOf(only.bytes);
    expect(onlyText).toContain('Installation guide');
    for (const absent of ['Welcome aboard', 'Linux specifics', 'Reference manual']) expect(onlyText).not.toContain(absent);
    expect(pageCount(only.bytes)).toBe(1);
    expect(pageCount(only.bytes)).toBeLessThan(pageCount(whole.bytes));

    const subtree = await download(await exportPdf(`?page=${ids.guide}`));
    const subtreeText = textOf(subtree.bytes);
    expect(subtreeText).toContain('Installation guide');
    expect(subtreeText).toContain('Linux specifics');
    expect(subtreeText).not.toContain('Welcome aboard');
    expect(subtreeText).not.toContain('Reference manual');
    expect(pageCount(subtree.bytes)).toBe(2);

    expect(shaOf(await exportPdf(`?only=true&page=${ids.guide}`))).toBe(shaOf(onlyUrl));
    expect(shaOf(await exportPdf(`?only=false`))).not.toBe(shaOf(onlyUrl));
  });

  it('answers 400 naming the field for bad query parameters', async () => {
    const onlyWithoutPage = await admin().get(pdfPath('?only=true'));
    expect(onlyWithoutPage.status).toBe(400);
    expect(onlyWithoutPage.body).toEqual({ error: { code: 400, message: expect.stringMatching(/page/) } });
    const notBoolean = await admin().get(pdfPath('?only=maybe'));
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.error.message).toMatch(/only/);
    const longPage = await admin().get(pdfPath(`?page=${'x'.repeat(65)}`));
    expect(longPage.status).toBe(400);
    expect(longPage.body.error.message).toMatch(/page/);
  });

  it('answers 404 for an unknown page or change request', async () => {
    const page = await admin().get(pdfPath('?only=true&page=missing'));
    expect(page.status).toBe(404);
    expect(page.body).toEqual({ error: { code: 404, message: 'Page not found' } });
    expect((await admin().get(`/v1/spaces/${space.id}/change-requests/missing/pdf`)).status).toBe(404);
    expect((await admin().get(`/v1/spaces/${space.id}/change-requests/999/pdf`)).status).toBe(404);
  });

  it('needs a token, read access to the space, and hides other organizations', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: pdfPath() });
    expect(anonymous.statusCode).toBe(401);
    expect(JSON.parse(anonymous.body)).toEqual({ error: { code: 401, message: expect.any(String) } });
    const elsewhere = await other.members.admin.api.get(pdfPath());
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual({ error: { code: 404, message: 'Space not found' } });
    expect((await org.members.guest.api.get(pdfPath())).status).toBe(404);
    for (const role of ['read', 'comment', 'edit', 'review', 'create'] as const) {
      expect((await org.members[role].api.get(pdfPath())).status).toBe(200);
    }
  });
});

describe('GET /pdf/{sha256} (the temporary link)', () => {
  it('needs no token, but a signature that matches and a link that has not expired', async () => {
    const url = await exportPdf();
    const sha256 = shaOf(url);
    const signature = new URL(url).searchParams.get('signature')!;
    const expires = Number(new URL(url).searchParams.get('expires'));
    const tampered = url.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    const forbidden = await download(tampered);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json()).toEqual({ error: { code: 403, message: expect.stringMatching(/signature/) } });
    // A later expiry with the old signature is a forgery too.
    expect((await download(url.replace(`expires=${expires}`, `expires=${expires + 3600}`))).status).toBe(403);
    // Another PDF's path with this signature.
    expect((await download(url.replace(sha256, '0'.repeat(64)))).status).toBe(403);

    const expired = await download(signedUrl(signingKey, t.config.publicUrl, `/pdf/${sha256}`, Math.floor(Date.now() / 1000) - 1));
    expect(expired.status).toBe(410);
    expect(expired.json()).toEqual({ error: { code: 410, message: expect.stringMatching(/expired/) } });

    const unknown = await download(signedUrl(signingKey, t.config.publicUrl, `/pdf/${'0'.repeat(64)}`, Math.floor(Date.now() / 1000) + 60));
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 404, message: 'PDF not found' } });

    const missing = await t.app.inject({ method: 'GET', url: `/pdf/${sha256}?expires=${expires}` });
    expect(missing.statusCode).toBe(400);
    expect(JSON.parse(missing.body).error.message).toMatch(/signature/);
    const notSha = await t.app.inject({ method: 'GET', url: `/pdf/not-a-sha?expires=${expires}&signature=${signature}` });
    expect(notSha.statusCode).toBe(400);

    // A fresh link made with the same key works: the signature is the whole credential.
    const fresh = await download(signedUrl(signingKey, t.config.publicUrl, `/pdf/${sha256}`, Math.floor(Date.now() / 1000) + 120));
    expect(fresh.status).toBe(200);
    expect(Number(/max-age=(\d+)/.exec(String(fresh.headers['cache-control']))![1])).toBeLessThanOrEqual(120);
  });

  it('names the file after the change request number when it has no subject, and stops serving a deleted space', async () => {
    const s = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Scratch' })).body;
    const untitled = (await admin().post(`/v1/spaces/${s.id}/change-requests`, {})).body;
    const res = await admin().get(`/v1/spaces/${s.id}/change-requests/${untitled.id}/pdf`);
    expect(res.status).toBe(200);
    const pdf = await download(res.body.url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-disposition']).toBe(`inline; filename="Change request 1.pdf"; filename*=UTF-8''Change%20request%201.pdf`);
    expect(textOf(pdf.bytes)).toContain('Untitled');

    expect((await admin().delete(`/v1/spaces/${s.id}`)).status).toBe(205);
    expect((await download(res.body.url)).status).toBe(404);
  });
});

describe("GET /v1/spaces/{spaceId}/pdf (the space's current content)", () => {
  let manual: { id: string };
  let chapter: string;
  let section: string;
  const spacePdf = (query = '', api = admin()) => api.get(`/v1/spaces/${manual.id}/pdf${query}`);

  /** Writes pages into the space's content through a merged change request. */
  async function publish(changes: unknown[]) {
    const c = (await admin().post(`/v1/spaces/${manual.id}/change-requests`, { subject: 'Publish' })).body;
    const edited = await admin().post(`/v1/spaces/${manual.id}/change-requests/${c.id}/content?compat=false`, { changes });
    expect(edited.status).toBe(200);
    expect((await admin().post(`/v1/spaces/${manual.id}/change-requests/${c.id}/merge`)).body.result).toBe('merge');
    return edited.body.changes as { ref?: string; page: { id: string } }[];
  }

  beforeAll(async () => {
    manual = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Field manual' })).body;
    const written = await publish([
      { operation: 'insert_page', ref: 'chapter', title: 'Chapter one', document: { markdown: 'Space content here.\n' } },
      { operation: 'insert_page', ref: 'section', into: 'chapter', title: 'Section two', document: { markdown: 'Nested words.\n' } },
    ]);
    chapter = written.find((c) => c.ref === 'chapter')!.page.id;
    section = written.find((c) => c.ref === 'section')!.page.id;
  });

  it('prints the merged content, names the file after the space and reuses the PDF until the content changes', async () => {
    const res = await spacePdf();
    expect(res.status).toBe(200);
    expectMatchesGitBook('getSpacePDF', res.body);
    const pdf = await download(res.body.url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`inline; filename="Field manual.pdf"; filename*=UTF-8''Field%20manual.pdf`);
    const text = textOf(pdf.bytes);
    expect(text).toContain('Chapter one');
    expect(text).toContain('Nested words.');
    expect(text.indexOf('Chapter one')).toBeLessThan(text.indexOf('Section two'));

    expect(shaOf((await spacePdf()).body.url)).toBe(shaOf(res.body.url));
    await publish([{ operation: 'update_page', page: chapter, document: { markdown: 'Space content, revised.\n' } }]);
    const again = await spacePdf();
    expect(shaOf(again.body.url)).not.toBe(shaOf(res.body.url));
    expect(textOf((await download(again.body.url)).bytes)).toContain('Space content, revised.');
  });

  it('prints one page alone with only=true', async () => {
    const res = await spacePdf(`?only=true&page=${section}`);
    expect(res.status).toBe(200);
    const text = textOf((await download(res.body.url)).bytes);
    expect(text).toContain('Nested words.');
    expect(text).not.toContain('Chapter one');
  });

  it('answers 400 for bad query parameters and 404 for an unknown page', async () => {
    const res = await spacePdf('?only=true');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/page/);
    expect((await spacePdf('?only=maybe')).status).toBe(400);
    expect(await spacePdf('?page=missing')).toMatchObject({ status: 404, body: { error: { code: 404, message: 'Page not found' } } });
  });

  it('needs a token and read access to the space, and hides other organizations', async () => {
    expect((await t.app.inject({ method: 'GET', url: `/v1/spaces/${manual.id}/pdf` })).statusCode).toBe(401);
    expect((await spacePdf('', other.members.admin.api)).status).toBe(404);
    expect((await spacePdf('', org.members.guest.api)).status).toBe(404);
    expect((await spacePdf('', org.members.read.api)).status).toBe(200);
  });

  it('stops serving the link once the space is deleted', async () => {
    const s = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Doomed' })).body;
    const res = await admin().get(`/v1/spaces/${s.id}/pdf`);
    expect(res.status).toBe(200);
    expect((await download(res.body.url)).status).toBe(200);
    expect((await admin().delete(`/v1/spaces/${s.id}`)).status).toBe(205);
    expect((await download(res.body.url)).status).toBe(404);
  });
});

describe('the export activity, called directly', () => {
  it('reuses a recorded PDF, prints again when its bytes are gone, and reports what it cannot find', async () => {
    const s = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Direct' })).body;
    const c = (await admin().post(`/v1/spaces/${s.id}/change-requests`, { subject: 'Direct' })).body;
    const revision = (await admin().get(`/v1/spaces/${s.id}/change-requests/${c.id}`)).body.revision as string;
    const options = { blobs: new LocalBlobStore(t.config.blobDir), chromiumPath: t.config.chromiumPath, publicUrl: t.config.publicUrl };
    const activities = pdfActivities(t.orm, options);
    const input = { spaceId: s.id, changeRequestId: c.id, revisionId: revision, pageId: null, only: false };

    // A print says where its time went; a reused PDF was not printed, so it has no timings.
    const withoutTimings = (outcome: PdfExportOutcome) => {
      expect(outcome).toMatchObject({ status: 'ready', reused: false });
      const { timings, ...rest } = outcome as Extract<PdfExportOutcome, { status: 'ready' }>;
      expect(Object.keys(timings ?? {}).sort()).toEqual([
        'closeMs',
        'contentMs',
        'convertMs',
        'loadMs',
        'prepareMs',
        'printMs',
        'storeMs',
        'waitMs',
      ]);
      for (const ms of Object.values(timings!)) expect(Number.isInteger(ms) && ms >= 0).toBe(true);
      return rest;
    };
    const printed = withoutTimings(await activities.exportChangeRequestPdf(input));
    expect(printed).toMatchObject({ pages: 1 });
    const reused = await activities.exportChangeRequestPdf(input);
    expect(reused).toEqual({ ...printed, reused: true });

    // The bytes are lost (another blob store): the PDF is printed and recorded again.
    const elsewhere = pdfActivities(t.orm, { ...options, blobs: new LocalBlobStore(join(scratch, 'blobs')) });
    const reprinted = withoutTimings(await elsewhere.exportChangeRequestPdf(input));
    expect(await elsewhere.exportChangeRequestPdf(input)).toEqual({ ...reprinted, reused: true });
    const rows = await sql<{ sha256: string }>(t, 'select sha256 from pdf_export where change_request_id = ?', [c.id]);
    expect(rows.map((r) => r.sha256)).toEqual([(reprinted as { sha256: string }).sha256]);

    expect(await activities.exportChangeRequestPdf({ ...input, pageId: 'missing', only: true })).toEqual({
      status: 'not-found',
      what: 'page',
    });
    expect(await activities.exportChangeRequestPdf({ ...input, spaceId: space.id })).toEqual({
      status: 'not-found',
      what: 'change request',
    });
    expect(await activities.exportChangeRequestPdf({ ...input, revisionId: 'missing' })).toEqual({ status: 'not-found', what: 'revision' });
  });
});

describe('reference', () => {
  it('documents both operations in a valid OpenAPI document, the link without a token', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json();
    const exportOperation = doc.paths['/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf'].get;
    expect(exportOperation.operationId).toBe('getChangeRequestPDF');
    expect(
      exportOperation.parameters
        .filter((p: { in: string }) => p.in === 'query')
        .map((p: { name: string }) => p.name)
        .sort(),
    ).toEqual(['only', 'page']);
    expect(doc.paths['/pdf/{sha256}'].get.security).toEqual([]);
    const { validate } = await import('@readme/openapi-parser');
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });
});
