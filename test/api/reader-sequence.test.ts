import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, listenOnLoopback, merge, newChangeRequest, newSpace, PNG_2X3, searchCaughtUp } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * A reader's visit as GitBook's site renderer makes it (the order `npm run e2e:reader` records),
 * replayed with GitBook's own client: the URL lookup with the renderer's site lookup token, then,
 * with the visitor's token of its answer, the published site, the space, the revision with its
 * metadata, a page's meta links and document, a redirect lookup, site search, and the image the
 * browser then loads by its signed link without any header. Every answer is checked against
 * GitBook's schema for its operation.
 */
let t: TestApp;
let org: TestOrg;
let serverUrl: string;
let siteId: string;
let spaceId: string;
const HOST = 'docs.reader-sequence.test';

beforeAll(async () => {
  t = await startTestApp();
  serverUrl = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Reader sequence org');
  const admin = org.members.admin.api;
  spaceId = (await newSpace(admin, org.id, { title: 'Handbook', empty: true })).id;
  const cr = await newChangeRequest(admin, spaceId);
  await edit(admin, spaceId, cr.id, [
    { operation: 'insert_files', files: [{ name: 'diagram.png', contentType: 'image/png', base64: PNG_2X3 }] },
    { operation: 'insert_page', title: 'Welcome', document: { markdown: 'Start with [installing](install.md).\n' } },
    {
      operation: 'insert_page',
      title: 'Install',
      document: {
        markdown:
          '{% hint style="info" %}\nNeeds a zebrafish.\n{% endhint %}\n\n{% tabs %}\n{% tab title="macOS" %}\nUse brew.\n{% endtab %}\n{% endtabs %}\n\n![Diagram](.gitbook/assets/diagram.png)\n',
      },
    },
  ]);
  await merge(admin, spaceId, cr.id);
  await searchCaughtUp(t, spaceId);
  const site = (await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Handbook', visibility: 'public', spaces: [spaceId] })).body;
  siteId = site.id;
  expect((await admin.patch(`/v1/orgs/${org.id}/sites/${siteId}`, { hostname: HOST })).status).toBe(200);
  expect((await admin.post(`/v1/orgs/${org.id}/sites/${siteId}/publish`)).status).toBe(200);
});
afterAll(() => t.close());

/** Every node of a document, depth first. */
const nodes = (node: any): any[] => [node, ...(node.nodes ?? []).flatMap(nodes), ...(node.fragments ?? []).flatMap(nodes)];

describe("a reader's visit, as GitBook's renderer makes it", () => {
  it('resolves the URL with the lookup token and reads everything else with the visitor token', async () => {
    const lookupToken = (await org.members.admin.api.post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token;
    // The package's bundled type declarations do not resolve under NodeNext, so the clients are typed loosely here.
    const renderer: any = new GitBookAPI({ endpoint: serverUrl, authToken: lookupToken });
    const resolved = (
      await renderer.urls.resolvePublishedContentByUrl({
        url: `https://${HOST}/install`,
        visitor: { unsignedClaims: {}, type: 'human' },
        redirectOnError: false,
      })
    ).data;
    expectMatchesGitBook('resolvePublishedContentByUrl', resolved);
    expect(resolved).toMatchObject({ site: siteId, space: spaceId, organization: org.id, pathname: 'install', complete: true });
    // The renderer decodes the token as a JWT and reads its claims.
    const claims = JSON.parse(Buffer.from(resolved.apiToken.split('.')[1], 'base64url').toString('utf8'));
    expect(claims).toMatchObject({ kind: 'site', site: siteId, space: spaceId, organization: org.id });

    const visitor: any = new GitBookAPI({ endpoint: serverUrl, authToken: resolved.apiToken });
    const published = (await visitor.orgs.getPublishedContentSite(org.id, siteId)).data;
    expectMatchesGitBook('getPublishedContentSite', published);
    const space = (await visitor.spaces.getSpaceById(spaceId)).data;
    expectMatchesGitBook('getSpaceById', space);
    const revision = (await visitor.spaces.getRevisionById(spaceId, resolved.revision, { metadata: true })).data;
    expectMatchesGitBook('getRevisionById', revision);
    const page = revision.pages.find((p: { title: string }) => p.title === 'Install');
    expect(page.id).toBe(resolved.page);
    const metaLinks = (await visitor.spaces.listRevisionPageMetaLinks(spaceId, resolved.revision, page.id)).data;
    expectMatchesGitBook('listRevisionPageMetaLinks', metaLinks);
    const document = (
      await visitor.spaces.getPageDocumentInRevisionById(spaceId, resolved.revision, page.id, {
        evaluated: 'deterministic-only',
        dereferenced: 'reusable-contents',
      })
    ).data;
    expectMatchesGitBook('getPageDocumentInRevisionById', document);
    const blocks = nodes(document).filter((n) => n.object === 'block');
    expect(blocks.map((b) => b.type)).toEqual(expect.arrayContaining(['hint', 'tabs', 'tabs-item', 'images', 'image']));
    // The renderer refuses a tab without a key.
    expect(blocks.every((b) => typeof b.key === 'string' && b.key !== '')).toBe(true);
    const found = (await visitor.orgs.searchSiteContent(org.id, siteId, { query: 'zebrafish' })).data;
    expectMatchesGitBook('searchSiteContent', found);
    expect(JSON.stringify(found)).toContain(page.id);
    expect(JSON.stringify(found)).not.toContain('{%');
    await expect(visitor.orgs.getSiteRedirectBySource(org.id, siteId, { source: '/old/install' })).rejects.toMatchObject({ code: 404 });

    // The browser loads the image by the signed link in the revision's files, with no header.
    const image = nodes(document).find((n) => n.type === 'image');
    const file = revision.files.find((f: { id: string }) => f.id === image.data.ref.file);
    const download = await fetch(file.downloadURL.replace('http://docs.test', serverUrl), { redirect: 'manual' });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(Buffer.from(PNG_2X3, 'base64'));

    // The lookup token itself reads nothing; the visitor token writes nothing.
    await expect(renderer.spaces.getSpaceById(spaceId)).rejects.toMatchObject({ code: 403 });
    await expect(visitor.spaces.createChangeRequest(spaceId, { subject: 'x' })).rejects.toMatchObject({ code: 403 });
  });
});
