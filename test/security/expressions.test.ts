import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadPageMap, writeRevision } from '../../src/db/content.ts';
import { EXPRESSION_BUDGET } from '../../src/domain/expressions.ts';
import { newId } from '../../src/domain/ids.ts';
import { positionBetween } from '../../src/domain/positions.ts';
import { newSpace } from '../support/fixtures.ts';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/sql.ts';

/**
 * Expressions that cost more than their length: an adversarial probe found that each level of a
 * nested filter over ten literal zeros multiplies the work by ten (Jexl's evaluator runs a
 * filter's predicate once per element, with no bound). Seven levels (232 characters) as a
 * site-space condition held the event loop 11.7 s; six as a custom merge rule by a guest with
 * `admin` on one space 1.7 s; as an `{% if %}` in a page, on every visitor read; and stored
 * conditions ran again on every `POST /v1/urls/published`. Here each is refused when written,
 * with a 400 naming the limit, and one planted in the database (as saved before the limits)
 * reads as a condition that does not hold: the item is hidden and the request answers.
 */

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
const SITES = 'http://docs.test/sites';

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 5).toString('base64') });
  org = await createTestOrg(t, 'Expressions org');
  other = await createTestOrg(t, 'Expressions other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const siteBase = (siteId: string) => `/v1/orgs/${org.id}/sites/${siteId}`;

/** The attack: each level a filter over ten literal zeros whose predicate is the next level (10^levels evaluations). */
const nested = (levels: number): string => (levels === 0 ? '0' : `{a:[0,0,0,0,0,0,0,0,0,0]}.a[.a||${nested(levels - 1)}]`);

function expectRefused(res: { status: number; body: any }, message: RegExp) {
  expect([res.status, res.body.error?.code]).toEqual([400, 400]);
  expect(res.body.error.message).toMatch(message);
}

/** A space whose current revision is one page `welcome` with this markdown; the page's id. */
async function spaceWithPage(title: string, markdown: string) {
  const space = await newSpace(admin(), org.id, { title, empty: true });
  const pageId = newId();
  const revision = await t.orm.em.fork().transactional(async (tx) => {
    const id = await writeRevision(tx, {
      spaceId: space.id,
      parents: [space.revision],
      type: 'edits',
      base: null,
      pages: {
        [pageId]: {
          id: pageId,
          parentId: null,
          position: positionBetween(null, null),
          type: 'document',
          title: 'Welcome',
          slug: 'welcome',
          markdown,
        },
      },
    });
    await sql(tx, 'update space set revision_id = ? where id = ?', [id, space.id]);
    return id;
  });
  expect(Object.keys(await loadPageMap(t.orm.em.fork(), revision, false))).toEqual([pageId]);
  return { id: space.id as string, pageId, revision };
}

describe('expressions written through the API', () => {
  it('refuses the 7-level nested filter as a site-space or section condition, naming the budget', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Conditioned' });
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Conditions', spaces: [space.id] })).body;
    const siteSpace = (await admin().get(`${siteBase(site.id)}/site-spaces`)).body.items[0];
    const attack = nested(7);
    expect(attack).toHaveLength(232);
    const costly = new RegExp(`^condition is not a valid expression: .*more than ${EXPRESSION_BUDGET} steps.*EXPRESSION_TOO_COSTLY`);
    expectRefused(await admin().patch(`${siteBase(site.id)}/site-spaces/${siteSpace.id}`, { condition: attack }), costly);
    const second = await newSpace(admin(), org.id, { title: 'Second' });
    const section = (await admin().post(`${siteBase(site.id)}/sections`, { spaceId: second.id, title: 'Second' })).body;
    expectRefused(await admin().patch(`${siteBase(site.id)}/sections/${section.id}`, { condition: attack }), costly);
    // Deep nesting is refused before it is parsed.
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    expectRefused(
      await admin().patch(`${siteBase(site.id)}/sections/${section.id}`, { condition: deep }),
      /nests 100 levels deep; at most 64 are allowed \(EXPRESSION_TOO_DEEP\)/,
    );
    // Nothing was saved; an ordinary condition still is.
    const structure = (await admin().get(`${siteBase(site.id)}/sections`)).body.items;
    expect(structure.every((s: { condition?: string }) => s.condition === undefined)).toBe(true);
    const ok = await admin().patch(`${siteBase(site.id)}/sections/${section.id}`, { condition: 'visitor.claims.unsigned.beta == true' });
    expect(ok.status).toBe(200);
  });

  it('refuses the 6-level custom merge rule, from a guest with admin on one space and from an organization admin', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Ruled' });
    const guest = org.members.guest;
    expect((await admin().post(`/v1/spaces/${space.id}/permissions`, { role: 'admin', users: [guest.userId] })).status).toBeLessThan(300);
    const mergeRules = { type: 'rules', rules: [{ rule: 'custom', expression: nested(6) }] };
    const costly = /^mergeRules\.rules\[0\]\.expression is not a valid expression: .*EXPRESSION_TOO_COSTLY/;
    expectRefused(await guest.api.patch(`/v1/spaces/${space.id}`, { mergeRules }), costly);
    expectRefused(await admin().patch(`/v1/orgs/${org.id}`, { mergeRules }), costly);
    expect((await admin().get(`/v1/spaces/${space.id}`)).body.mergeRules).toEqual({ type: 'inherit' });
    // An ordinary custom rule is still taken from the same guest.
    const ordinary = { type: 'rules', rules: [{ rule: 'custom', expression: 'changeRequest.subject != ""' }] };
    expect((await guest.api.patch(`/v1/spaces/${space.id}`, { mergeRules: ordinary })).status).toBe(200);
  });
});

describe('an over-budget condition saved before the limits', () => {
  const attack = nested(7);
  /**
   * In a page: cheap against the empty context a condition is tried on when written (and when the
   * page is converted), over the budget for a visitor whose unsigned claim `go` is true.
   */
  const gated = `visitor.claims.unsigned.go ? ${nested(5)} : false`;
  let site: { id: string };
  let root: Awaited<ReturnType<typeof spaceWithPage>>;
  let hidden: { id: string; path: string };
  let url: string;

  beforeAll(async () => {
    root = await spaceWithPage(
      'Root',
      `# Welcome\n\nPublic text.\n\n{% if ${gated} %}\nSecret text.\n{% endif %}\n\n{% if visitor.claims.unsigned.go %}\nBeta text.\n{% endif %}\n`,
    );
    const variant = await spaceWithPage('Variant', '# Welcome\n\nVariant text.\n');
    site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Planted', visibility: 'public', spaces: [root.id] })).body;
    hidden = (await admin().post(`${siteBase(site.id)}/site-spaces`, { spaceId: variant.id })).body;
    const schema = {
      type: 'object',
      properties: {
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { go: { type: 'boolean', description: 'Goes further' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    };
    expect((await admin().put(`${siteBase(site.id)}/adaptive-schema`, { jsonSchema: schema })).status).toBe(200);
    // Planted as a condition saved before the limits would be: past the API, straight into its row.
    await sql(t.orm.em.fork(), 'update site_space set condition = ? where id = ?', [attack, hidden.id]);
    expect((await admin().post(`${siteBase(site.id)}/publish`)).status).toBe(200);
    url = `${SITES}/${org.id}/${site.id}/${hidden.path}/welcome`;
  });

  it('still answers POST /v1/urls/published, the site-space hidden, for its organization and for another', async () => {
    for (const api of [admin(), other.members.admin.api, admin()]) {
      const res = await api.post('/v1/urls/published', { url });
      expect(res.status).toBe(200);
      // The planted site-space is invisible: its path reads as a page path of the root one.
      expect(res.body).toMatchObject({ space: root.id, pathname: `${hidden.path}/welcome` });
      expect(res.body.siteSpace).not.toBe(hidden.id);
    }
    // A visitor with claims too.
    const claimed = await admin().post('/v1/urls/published', { url, visitor: { unsignedClaims: { go: true } } });
    expect(claimed.status).toBe(200);
    expect(claimed.body.siteSpace).not.toBe(hidden.id);
  });

  it("leaves the site-space out of the published site its visitor reads, and the over-budget `if` branch out of the visitor's page", async () => {
    const lookup = await admin().post('/v1/urls/published', {
      url: `${SITES}/${org.id}/${site.id}/welcome`,
      visitor: { unsignedClaims: { go: true } },
    });
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ space: root.id, page: root.pageId });
    const visitor = client(t.app, lookup.body.apiToken);
    const published = await visitor.get(`${siteBase(site.id)}/published`);
    expect(published.status).toBe(200);
    expect(JSON.stringify(published.body.structure)).not.toContain(hidden.id);
    // Its members still see it.
    expect(JSON.stringify((await admin().get(`${siteBase(site.id)}/published`)).body.structure)).toContain(hidden.id);

    const document = `/v1/spaces/${root.id}/revisions/${lookup.body.revision}/page/${root.pageId}/document?evaluated=true`;
    for (let read = 0; read < 2; read++) {
      const evaluated = await visitor.get(document);
      expect(evaluated.status).toBe(200);
      const text = JSON.stringify(evaluated.body);
      expect(text).toContain('Public text.');
      // The visitor's claim holds (the plain condition on it shows its branch); the costly one does not.
      expect(text).toContain('Beta text.');
      expect(text).not.toContain('Secret text.');
    }
  });
});
