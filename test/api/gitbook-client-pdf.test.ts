import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client asks for a change request's PDF; the answer matches GitBook's schema and
 * its URL downloads the PDF over HTTP with no token.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let origin: string;

beforeAll(async () => {
  t = await startTestApp();
  origin = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client PDF org');
  api = new GitBookAPI({ endpoint: origin, authToken: org.members.read.token });
});
afterAll(() => t.close());

/** The returned URL on PUBLIC_URL, fetched from where the test app listens. */
async function fetchLink(url: string) {
  const parsed = new URL(url);
  expect(parsed.origin).toBe(t.config.publicUrl);
  return fetch(`${origin}${parsed.pathname}${parsed.search}`);
}

describe('GitBook client: change request PDF', () => {
  it('gets a temporary URL for the whole content and for one page', async () => {
    const admin = new GitBookAPI({ endpoint: origin, authToken: org.members.admin.token }) as any;
    const space = (await admin.orgs.createSpace(org.id, { title: 'Client PDF' })).data;
    const cr = (await admin.spaces.createChangeRequest(space.id, { subject: 'Client' })).data;
    const page = (await admin.spaces.listPagesInChangeRequest(space.id, cr.id)).data.pages[0];

    const whole = (await api.spaces.getChangeRequestPdf(space.id, cr.id, {})).data;
    expectMatchesGitBook('getChangeRequestPDF', whole);
    const one = (await api.spaces.getChangeRequestPdf(space.id, cr.number, { only: true, page: page.id })).data;
    expectMatchesGitBook('getChangeRequestPDF', one);

    const res = await fetchLink(one.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');

    const error = await api.spaces
      .getChangeRequestPdf(space.id, cr.id, { only: true, page: 'missing' })
      .catch((e: { code: number; errorMessage: string }) => e);
    expect(error).toMatchObject({ code: 404, errorMessage: 'Page not found' });
  });
});

describe('GitBook client: space PDF', () => {
  it("gets a temporary URL for the space's current content and for one page", async () => {
    const admin = new GitBookAPI({ endpoint: origin, authToken: org.members.admin.token }) as any;
    const space = (await admin.orgs.createSpace(org.id, { title: 'Client space PDF' })).data;
    const page = (await admin.spaces.listPages(space.id)).data.pages[0];

    const whole = (await api.spaces.getSpacePdf(space.id, {})).data;
    expectMatchesGitBook('getSpacePDF', whole);
    const one = (await api.spaces.getSpacePdf(space.id, { only: true, page: page.id })).data;
    expectMatchesGitBook('getSpacePDF', one);

    const res = await fetchLink(whole.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
  });
});
