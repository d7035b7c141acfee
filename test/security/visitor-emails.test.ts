import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';

/**
 * A site visitor's token (the `apiToken` of a published URL lookup) reads the published content of
 * its site; nothing it reads may carry a member's email address, nor a change request's
 * description. Every route the token is admitted to (those marked `config: { visitor: true }`,
 * found from the app's own routes, so a new one is covered here without being listed) is called
 * with real ids, and every answer is scanned for the email of each member of the organization.
 * (Revisions merged from a change request once showed `mergedFrom.createdBy.email` and
 * `mergedFrom.mergedBy.email` to every reader of the site.)
 */

let t: TestApp;
let org: TestOrg;
const real: Record<string, string> = {};
let token: string;
let emails: string[];
const DESCRIPTION = 'Internal notes: ask the legal team before launch';

/** The refusal a site visitor's token meets on a route that is not marked for it (src/api/auth.ts). */
const NOT_FOR_VISITORS = "A site visitor's token only reads the published content of its site";

beforeAll(async () => {
  t = await startTestApp({ AUTH_CACHE_TTL: '0s' });
  org = await createTestOrg(t, 'Visitor emails org');
  const admin = org.members.admin.api;
  const space = await newSpace(admin, org.id, { title: 'Published handbook' });
  // Content merged from a change request that one member made and another merged.
  const cr = await newChangeRequest(org.members.edit.api, space.id, 'Release notes for the launch');
  expect((await org.members.edit.api.patch(`/v1/spaces/${space.id}/change-requests/${cr.id}`, { description: DESCRIPTION })).status).toBe(
    200,
  );
  const edited = await edit(org.members.edit.api, space.id, cr.id, [
    { operation: 'insert_page', title: 'Release notes', document: { markdown: 'Everything new.' } },
  ]);
  await merge(admin, space.id, cr.id);
  const site = (await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Site', visibility: 'public', spaces: [space.id] })).body;
  expect((await admin.post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
  const url = `http://docs.test/sites/${org.id}/${site.id}/`;
  const lookup = await admin.post('/v1/urls/published', { url });
  expect(lookup.status).toBe(200);
  token = lookup.body.apiToken;
  const current = (await admin.get(`/v1/spaces/${space.id}`)).body;
  Object.assign(real, {
    organizationId: org.id,
    siteId: site.id,
    spaceId: space.id,
    revisionId: current.revision,
    pageId: edited.changes[0].page.id,
    changeRequestId: cr.id,
    userId: org.members.edit.userId,
    url,
  });
  const members = await admin.get(`/v1/orgs/${org.id}/members?limit=100`);
  emails = members.body.items.map((m: { user: { email: string } }) => m.user.email.toLowerCase());
  expect(emails.length).toBeGreaterThanOrEqual(7);
});
afterAll(() => t.close());

/** Every operation of the API, from the app's own OpenAPI document. */
function operations(): { method: string; path: string }[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
}

const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => real[name] ?? 'unknown');

/** What each visitor-readable POST is called with: a real request, as the site's renderer makes it. */
const bodies: Record<string, object> = {
  '/v1/urls/published': { url: 'http://docs.test/sites/{organizationId}/{siteId}/' },
  '/v1/orgs/{organizationId}/sites/{siteId}/search': { query: 'Release' },
};

const fillBody = (body: object) => JSON.parse(fill(JSON.stringify(body))) as object;

it("answers a site visitor's token with no member's email anywhere, on every route it reads", async () => {
  const send = async (method: string, url: string, body?: object) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, text: res.body };
  };
  const admitted: string[] = [];
  const leaks: string[] = [];
  let mergedFromSeen = 0;
  for (const op of operations().filter((o) => o.path.startsWith('/v1/'))) {
    const url = fill(op.path);
    const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : fillBody(bodies[op.path] ?? {});
    const first = await send(op.method, url, body);
    if (first.status === 403 && first.text.includes(NOT_FOR_VISITORS)) continue;
    admitted.push(`${op.method} ${op.path}`);
    // Reads with their options too: `metadata` adds the change request a revision was merged from.
    const queries = op.method === 'GET' ? ['', '?metadata=true', '?source=/release-notes', '?evaluated=true'] : [''];
    for (const query of queries) {
      const res = query === '' ? first : await send('GET', `${url}${query}`);
      const text = res.text.toLowerCase();
      if (text.includes('"mergedfrom"')) mergedFromSeen++;
      for (const email of emails) if (text.includes(email)) leaks.push(`${op.method} ${url}${query} (${res.status}): ${email}`);
      if (text.includes(DESCRIPTION.toLowerCase()))
        leaks.push(`${op.method} ${url}${query} (${res.status}): the change request's description`);
    }
  }
  // The routes a visitor's token reads are found, not listed: the known ones are among them.
  expect(admitted).toEqual(
    expect.arrayContaining([
      'GET /v1/spaces/{spaceId}',
      'GET /v1/spaces/{spaceId}/content',
      'GET /v1/spaces/{spaceId}/revisions/{revisionId}',
      'GET /v1/users/{userId}',
      'POST /v1/urls/published',
    ]),
  );
  // The answers that showed the merge were read: the scan looked where the emails were.
  expect(mergedFromSeen).toBeGreaterThan(0);
  expect(leaks).toEqual([]);
});
