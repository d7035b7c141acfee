/**
 * Helpers the API tests share: making spaces and change requests through the API, editing and
 * reading content, raw SQL for checks the API cannot make, and the error-shape assertion.
 * Each takes the client (or test app) to act with, so a test says who does what.
 */
import { expect } from '@jest/globals';
import { eventually, type Api, type Response, type TestApp, type TestOrg } from './harness.ts';

/** A 2×3 PNG image (base64). */
export const PNG_2X3 = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR4nGP8z8DwnwEKGJFZAFApAwHxtIzbAAAAAElFTkSuQmCC';
/** A 1×1 PNG image (base64). */
export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Runs SQL on a fresh entity manager of the test app (for facts the API does not show). */
export function sql<T = any>(t: TestApp, text: string, params: unknown[] = []): Promise<T[]> {
  return t.orm.em.fork().getConnection().execute<T[]>(text, params);
}

/** Waits until the space's search index reflects its current revision (merges leave it to a job of its own). */
export async function searchCaughtUp(t: TestApp, spaceId: string): Promise<void> {
  await eventually(
    async () =>
      (
        await sql(
          t,
          'select 1 from search_state st join space s on s.id = st.space_id where st.space_id = ? and st.revision_id = s.revision_id',
          [spaceId],
        )
      ).length === 1,
    120_000,
    100,
  );
}

/** A 400 in the error shape whose message names `field`. */
export function expect400(res: Response, field: RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe(400);
  expect(res.body.error.message).toMatch(field);
}

/** Creates a space in `orgId` (201 expected) and returns it. */
export async function newSpace(api: Api, orgId: string, body: object = { title: 'Docs' }): Promise<any> {
  const res = await api.post(`/v1/orgs/${orgId}/spaces`, body);
  expect(res.status).toBe(201);
  return res.body;
}

/** Opens a change request on a space (201 expected) and returns it. */
export async function newChangeRequest(
  api: Api,
  spaceId: string,
  subject = 'Edit',
): Promise<{ id: string; number: number; revision: string } & Record<string, any>> {
  const res = await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject });
  expect(res.status).toBe(201);
  return res.body;
}

/** Applies content changes to a change request (`?compat=false`); the answer is not checked. */
export function postChanges(api: Api, spaceId: string, crId: string, changes: unknown[]): Promise<Response> {
  return api.post(`/v1/spaces/${spaceId}/change-requests/${crId}/content?compat=false`, { changes });
}

/** What applying content changes answers. */
export type Edited = { changes: { object: string; ref?: string; page: { id: string } & Record<string, any> }[] } & Record<string, any>;

/** Applies content changes to a change request (200 expected) and returns the answer's body. */
export async function edit(api: Api, spaceId: string, crId: string, changes: unknown[]): Promise<Edited> {
  const res = await postChanges(api, spaceId, crId, changes);
  expect(res.status).toBe(200);
  return res.body;
}

/** Merges a change request and expects it to merge. */
export async function merge(api: Api, spaceId: string, crId: string): Promise<void> {
  const res = await api.post(`/v1/spaces/${spaceId}/change-requests/${crId}/merge`);
  expect(res.body.result).toBe('merge');
}

/** The page tree of a space, or of one of its change requests (200 expected). */
export async function contentPages(api: Api, spaceId: string, crId?: string): Promise<any[]> {
  const res = await api.get(crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content/pages` : `/v1/spaces/${spaceId}/content/pages`);
  expect(res.status).toBe(200);
  return res.body.pages;
}

/** Makes the test app listen on a free loopback port (for real HTTP clients) and returns its origin. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

type Member = keyof TestOrg['members'];

/**
 * A space of `org` with these merge rules (none with null) and a change request opened by `edit`
 * with one edit of its first page; `review` and `merge` act on it as a member of the organization.
 */
export async function ruledChangeRequest(org: TestOrg, rules: unknown[] | null, options: { subject?: string; mergeAs: Member }) {
  const as = (role: Member) => org.members[role].api;
  const space = await newSpace(as('admin'), org.id);
  if (rules) expect((await as('admin').patch(`/v1/spaces/${space.id}`, { mergeRules: { type: 'rules', rules } })).status).toBe(200);
  const cr = await newChangeRequest(as('edit'), space.id, options.subject ?? 'Change');
  const root = (await contentPages(as('admin'), space.id))[0];
  const change = (markdown: string) =>
    edit(as('edit'), space.id, cr.id, [{ operation: 'update_page', page: root.id, document: { markdown } }]);
  await change('First\n');
  const base = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  return {
    space,
    cr,
    base,
    change,
    review: (who: Member, status = 'approved') => as(who).post(`${base}/reviews`, { status }),
    merge: (who: Member = options.mergeAs) => as(who).post(`${base}/merge`),
  };
}
