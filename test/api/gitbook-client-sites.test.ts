import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { SignJWT } from 'jose';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives every site operation and the URL resolution; each response is
 * checked against the schema GitBook's OpenAPI document gives for that operation.
 */
let t: TestApp;
let org: TestOrg;
let api: any;
let sitesUrl: string;

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 11).toString('base64') });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  org = await createTestOrg(t, 'Client sites org');
  api = new GitBookAPI({ endpoint: `http://127.0.0.1:${port}`, authToken: org.members.admin.token });
  sitesUrl = t.config.sitesUrl;
});
afterAll(() => t.close());

describe('GitBook client: sites', () => {
  it('drives sites, sections, groups, site-spaces, share links and settings', async () => {
    const first = (await api.orgs.createSpace(org.id, { title: 'First space' })).data;
    const second = (await api.orgs.createSpace(org.id, { title: 'Second space' })).data;
    const third = (await api.orgs.createSpace(org.id, { title: 'Third space' })).data;

    const created = await api.orgs.createSite(org.id, { title: 'Client site', visibility: 'public', spaces: [first.id] });
    expect(created.status).toBe(201);
    expectMatchesGitBook('createSite', created.data, 201);
    const siteId = created.data.id;
    await api.orgs.createSite(org.id, { title: 'Another site' });
    const firstPage = (await api.orgs.listSites(org.id, { limit: 1 })).data;
    expectMatchesGitBook('listSites', firstPage);
    expectMatchesGitBook('listSites', (await api.orgs.listSites(org.id, { page: firstPage.next.page })).data);
    expectMatchesGitBook('getSiteById', (await api.orgs.getSiteById(org.id, siteId)).data);
    const updated = (
      await api.orgs.updateSiteById(org.id, siteId, { title: 'Renamed site', basename: `client-${Date.now().toString(36)}` })
    ).data;
    expectMatchesGitBook('updateSiteById', updated);
    expectMatchesGitBook('publishSite', (await api.orgs.publishSite(org.id, siteId)).data);

    const siteSpaces = (await api.orgs.listSiteSpaces(org.id, siteId)).data;
    expectMatchesGitBook('listSiteSpaces', siteSpaces);
    const added = await api.orgs.addSpaceToSite(org.id, siteId, { spaceId: second.id });
    expect(added.status).toBe(201);
    expectMatchesGitBook('addSpaceToSite', added.data, 201);
    expectMatchesGitBook(
      'updateSiteSpaceById',
      (
        await api.orgs.updateSiteSpaceById(org.id, siteId, added.data.id, {
          path: 'second',
          condition: 'visitor.claims.unsigned.beta == true',
        })
      ).data,
    );
    expectMatchesGitBook(
      'moveSiteSpace',
      (
        await api.orgs.moveSiteSpace(org.id, siteId, added.data.id, {
          position: { before: { type: 'site-space', siteSpace: siteSpaces.items[0].id } },
        })
      ).data,
    );
    expect((await api.orgs.deleteSiteSpaceById(org.id, siteId, added.data.id)).status).toBe(205);

    const section = await api.orgs.addSectionToSite(org.id, siteId, { spaceId: third.id, title: 'Third' });
    expect(section.status).toBe(201);
    expectMatchesGitBook('addSectionToSite', section.data, 201);
    const sections = (await api.orgs.listSiteSections(org.id, siteId)).data;
    expectMatchesGitBook('listSiteSections', sections);
    expectMatchesGitBook(
      'updateSiteSectionById',
      (await api.orgs.updateSiteSectionById(org.id, siteId, section.data.id, { description: 'The third', icon: 'book', condition: null }))
        .data,
    );
    expectMatchesGitBook(
      'moveSiteSection',
      (
        await api.orgs.moveSiteSection(org.id, siteId, section.data.id, {
          position: { before: { type: 'site-section', siteSection: sections.items[0].id } },
        })
      ).data,
    );

    const group = await api.orgs.addSectionGroupToSite(org.id, siteId, { title: 'Group', sections: [section.data.id] });
    expect(group.status).toBe(201);
    expectMatchesGitBook('addSectionGroupToSite', group.data, 201);
    expectMatchesGitBook('listSiteSectionGroups', (await api.orgs.listSiteSectionGroups(org.id, siteId)).data);
    expectMatchesGitBook(
      'updateSiteSectionGroupById',
      (await api.orgs.updateSiteSectionGroupById(org.id, siteId, group.data.id, { title: 'Renamed group', icon: null })).data,
    );
    expectMatchesGitBook('moveSiteSectionGroup', (await api.orgs.moveSiteSectionGroup(org.id, siteId, group.data.id, {})).data);

    const published = (await api.orgs.getPublishedContentSite(org.id, siteId)).data;
    expectMatchesGitBook('getPublishedContentSite', published);
    expect(published.structure.type).toBe('sections');
    // The site's structure on its own: the published site's, for the same readers.
    const structure = (await api.orgs.getSiteStructure(org.id, siteId)).data;
    expectMatchesGitBook('getSiteStructure', structure);
    expect(structure).toEqual(published.structure);
    expect(structure.structure.map((item: any) => item.object)).toEqual(expect.arrayContaining(['site-section', 'site-section-group']));
    // Outsiders and strangers to the organization see no site there.
    const outsider: any = new GitBookAPI({ endpoint: api.endpoint, authToken: (await createTestOrg(t, 'Outsiders')).members.admin.token });
    await expect(outsider.orgs.getSiteStructure(org.id, siteId)).rejects.toMatchObject({ code: 404 });

    expect((await api.orgs.deleteSiteSectionGroupById(org.id, siteId, group.data.id)).status).toBe(205);
    expect((await api.orgs.deleteSiteSectionById(org.id, siteId, section.data.id)).status).toBe(205);

    const link = await api.orgs.createSiteShareLink(org.id, siteId, { name: 'Client link' });
    expect(link.status).toBe(201);
    expectMatchesGitBook('createSiteShareLink', link.data, 201);
    expectMatchesGitBook('listSiteShareLinks', (await api.orgs.listSiteShareLinks(org.id, siteId)).data);
    expectMatchesGitBook(
      'updateSiteShareLinkById',
      (await api.orgs.updateSiteShareLinkById(org.id, siteId, link.data.id, { active: false })).data,
    );
    expect((await api.orgs.deleteSiteShareLinkById(org.id, siteId, link.data.id)).status).toBe(205);

    const schema = {
      type: 'object',
      properties: {
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { beta: { type: 'boolean', description: 'Beta' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    };
    expectMatchesGitBook(
      'updateSiteAdaptiveSchema',
      (await api.orgs.updateSiteAdaptiveSchema(org.id, siteId, { jsonSchema: schema })).data,
    );
    expectMatchesGitBook('getSiteAdaptiveSchema', (await api.orgs.getSiteAdaptiveSchema(org.id, siteId)).data);

    expectMatchesGitBook('getSitePublishingAuthById', (await api.orgs.getSitePublishingAuthById(org.id, siteId)).data);
    expectMatchesGitBook(
      'updateSitePublishingAuthById',
      (await api.orgs.updateSitePublishingAuthById(org.id, siteId, { backend: 'custom', fallbackURL: 'https://example.com/login' })).data,
    );
    expectMatchesGitBook('regenerateSitePublishingAuthById', (await api.orgs.regenerateSitePublishingAuthById(org.id, siteId)).data);

    expectMatchesGitBook('getSiteCustomizationById', (await api.orgs.getSiteCustomizationById(org.id, siteId)).data);
    const customized = (await api.orgs.updateSiteCustomizationById(org.id, siteId, { styling: { theme: 'bold', corners: 'straight' } }))
      .data;
    expectMatchesGitBook('updateSiteCustomizationById', customized);
    expect(customized.styling.theme).toBe('bold');

    expectMatchesGitBook('unpublishSite', (await api.orgs.unpublishSite(org.id, siteId)).data);
    expect((await api.orgs.deleteSiteById(org.id, siteId)).status).toBe(205);
    await expect(api.orgs.getSiteById(org.id, siteId)).rejects.toMatchObject({ code: 404 });
  });

  it('resolves published URLs, app URLs and embeds', async () => {
    const space = (await api.orgs.createSpace(org.id, { title: 'Resolved' })).data;
    const site = (await api.orgs.createSite(org.id, { title: 'Resolvable', visibility: 'visitor-auth', spaces: [space.id] })).data;
    await api.orgs.publishSite(org.id, site.id);
    const key = (await api.orgs.getSitePublishingAuthById(org.id, site.id)).data.privateKey;
    const jwtToken = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(key));
    const url = `${sitesUrl}/${org.id}/${site.id}/`;

    const resolved = (await api.urls.resolvePublishedContentByUrl({ url, visitor: { jwtToken } })).data;
    expectMatchesGitBook('resolvePublishedContentByUrl', resolved);
    expect(resolved).toMatchObject({ site: site.id, space: space.id, pathname: '' });
    const deprecated = (await api.urls.getPublishedContentByUrl({ url, visitorAuthToken: jwtToken })).data;
    expectMatchesGitBook('getPublishedContentByUrl', deprecated);

    await api.orgs.updateSitePublishingAuthById(org.id, site.id, { backend: 'custom', fallbackURL: 'https://example.com/login' });
    const redirect = (await api.urls.resolvePublishedContentByUrl({ url, redirectOnError: true })).data;
    expectMatchesGitBook('resolvePublishedContentByUrl', redirect);
    expect(redirect.redirect).toBe('https://example.com/login');

    let error: unknown;
    try {
      await api.urls.resolvePublishedContentByUrl({ url });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GitBookAPIError);
    expect((error as GitBookAPIError).code).toBe(404);

    const content = (await api.urls.getContentByUrl({ url: space.urls.app })).data;
    expectMatchesGitBook('getContentByUrl', content);
    expect(content.space.id).toBe(space.id);

    const publicSite = (await api.orgs.createSite(org.id, { title: 'Embeds', spaces: [space.id] })).data;
    await api.orgs.publishSite(org.id, publicSite.id);
    const embed = (await api.urls.getEmbedByUrl({ url: `${sitesUrl}/${org.id}/${publicSite.id}/` })).data;
    expectMatchesGitBook('getEmbedByUrl', embed);
    expect(embed).toEqual({ title: 'Untitled', site: 'Embeds', type: 'link' });
  });

  it('drives site redirects, site search, users by id and embeds in a space', async () => {
    const space = (await api.orgs.createSpace(org.id, { title: 'Redirected' })).data;
    const site = (await api.orgs.createSite(org.id, { title: 'Redirects', visibility: 'public', spaces: [space.id] })).data;
    await api.orgs.publishSite(org.id, site.id);
    const siteSpace = (await api.orgs.listSiteSpaces(org.id, site.id)).data.items[0];

    const created = await api.orgs.createSiteRedirect(org.id, site.id, {
      source: '/old/*',
      captureWildcard: true,
      destination: { kind: 'site-space', siteSpaceId: siteSpace.id },
    });
    expect(created.status).toBe(201);
    expectMatchesGitBook('createSiteRedirect', created.data, 201);
    const bulk = (
      await api.orgs.bulkUpsertSiteRedirects(org.id, site.id, {
        redirects: [
          { source: '/ext', destination: { kind: 'external', url: 'https://example.com/' } },
          { source: '/draft', intent: 'draft', destination: { kind: 'external', url: 'https://example.com/d' } },
        ],
      })
    ).data;
    expectMatchesGitBook('bulkUpsertSiteRedirects', bulk);
    const listed = (await api.orgs.listSiteRedirects(org.id, site.id, { limit: 1, orderBy: 'source' })).data;
    expectMatchesGitBook('listSiteRedirects', listed);
    expect(listed.items[0].source).toBe('/ext');
    expectMatchesGitBook(
      'listSiteRedirects',
      (await api.orgs.listSiteRedirects(org.id, site.id, { page: listed.next.page, orderBy: 'source' })).data,
    );
    expectMatchesGitBook(
      'updateSiteRedirectById',
      (await api.orgs.updateSiteRedirectById(org.id, site.id, created.data.id, { permanent: true })).data,
    );
    const found = (await api.orgs.getSiteRedirectBySource(org.id, site.id, { source: '/old/a' })).data;
    expectMatchesGitBook('getSiteRedirectBySource', found);
    expect(found.redirect.id).toBe(created.data.id);
    expect((await api.orgs.deleteSiteRedirectById(org.id, site.id, created.data.id)).status).toBe(205);
    expect((await api.orgs.deleteSiteRedirectById(org.id, site.id, created.data.id)).status).toBe(204);
    await expect(api.orgs.getSiteRedirectBySource(org.id, site.id, { source: '/old/a' })).rejects.toMatchObject({ code: 404 });

    const results = (await api.orgs.searchSiteContent(org.id, site.id, { query: 'anything', scope: { mode: 'all' } }, {})).data;
    expectMatchesGitBook('searchSiteContent', results);
    const current = (
      await api.orgs.searchSiteContent(org.id, site.id, { query: 'anything', mode: 'current', siteSpaceId: siteSpace.id }, {})
    ).data;
    expectMatchesGitBook('searchSiteContent', current);

    const me = (await api.user.getAuthenticatedUser()).data;
    const user = (await api.users.getUserById(me.id)).data;
    expectMatchesGitBook('getUserById', user);
    expect(user.id).toBe(me.id);
    await expect(api.users.getUserById('nobody')).rejects.toMatchObject({ code: 404 });

    const embed = (await api.spaces.getEmbedByUrlInSpace(space.id, { url: 'https://example.com/video' })).data;
    expectMatchesGitBook('getEmbedByUrlInSpace', embed);
    expect(embed).toEqual({ title: 'https://example.com/video', site: 'example.com', type: 'link' });
  });
});
