import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_JSON_DEPTH } from '../../src/api/app.ts';
import { writeRevision } from '../../src/db/content.ts';
import { sql } from '../support/sql.ts';
import { MAX_PAGE_DEPTH, type PageMap } from '../../src/domain/content/tree.ts';
import { positionBetween } from '../../src/domain/positions.ts';
import { contentPages, edit, newChangeRequest, newSpace, postChanges } from '../support/fixtures.ts';
import { createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { startImportFixtures, zipOf, type ImportFixtures } from '../support/import-fixtures.ts';

/**
 * The request path stays bounded, as an adversarial probe found it was not:
 * - a JSON body nested 10,000 levels deep answered 500 (a recursive walk ran out of stack);
 * - a page tree about 2,200 levels deep, built 50 pages a batch, made `GET …/content` and
 *   `…/content/pages` answer 500 to every reader of the space;
 * - one 10 MB change-request batch held the API's event loop for seconds (each page's markdown
 *   parsed whole to find its title; see `npm run bench -- --only healthz-batch` for the figures).
 */
let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Request bounds org');
  fx = await startImportFixtures();
});
afterAll(async () => {
  await fx?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;

/** Sends `payload` as it is (a JSON text no serializer would produce) with the admin's token. */
async function postRaw(url: string, payload: string) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${org.members.admin.token}`, 'content-type': 'application/json' },
    payload,
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

/** A GitBook document node: blockquotes nested `levels` deep around one paragraph (two JSON levels each). */
const nestedQuotes = (levels: number) =>
  '{"object":"block","type":"blockquote","nodes":['.repeat(levels) +
  '{"object":"block","type":"paragraph","nodes":[{"object":"text","leaves":[{"object":"leaf","text":"deep","marks":[]}]}]}' +
  ']}'.repeat(levels);

/** Nesting depth of arrays and objects in a JSON text (outside strings). */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return max;
}

describe('JSON body nesting', () => {
  it('refuses a body nested 10,000 levels deep with a 400 in the error shape, and stores nothing', async () => {
    const space = await newSpace(admin(), org.id);
    const page = (await contentPages(admin(), space.id))[0];
    const attack = `{"page":"${page.id}","body":{"document":{"nodes":[${nestedQuotes(5_000)}]}}}`;
    expect(jsonDepth(attack)).toBeGreaterThan(10_000);
    const res = await postRaw(`/v1/spaces/${space.id}/comments`, attack);
    expect(res).toEqual({
      status: 400,
      body: { error: { code: 400, message: `body must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep` } },
    });
    // Anywhere in any body: an array of arrays sent to a route whose schema would drop it.
    const arrays = await postRaw(
      `/v1/spaces/${space.id}/change-requests`,
      `{"subject":"x","extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    );
    expect(arrays.status).toBe(400);
    expect(arrays.body.error).toEqual({ code: 400, message: expect.stringMatching(/more than 128 levels deep/) });
    expect((await admin().get(`/v1/spaces/${space.id}/comments`)).body.items).toEqual([]);
    expect((await admin().get(`/v1/spaces/${space.id}/change-requests?status=open`)).body.items).toEqual([]);
  });

  it(`takes a body exactly ${MAX_JSON_DEPTH} levels deep, and refuses one level more`, async () => {
    const space = await newSpace(admin(), org.id);
    const body = (levels: number) => `{"subject":"deep","extra":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expect(jsonDepth(body(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
    expect((await postRaw(`/v1/spaces/${space.id}/change-requests`, body(MAX_JSON_DEPTH))).status).toBe(201);
    expect((await postRaw(`/v1/spaces/${space.id}/change-requests`, body(MAX_JSON_DEPTH + 1))).status).toBe(400);
  });

  it('still takes the deepest legitimate bodies: a GitBook document with a list nested ten levels deep', async () => {
    const space = await newSpace(admin(), org.id);
    const page = (await contentPages(admin(), space.id))[0];
    const text = (s: string) => ({ object: 'text', leaves: [{ object: 'leaf', text: s, marks: [{ object: 'mark', type: 'bold' }] }] });
    let list: object = { object: 'block', type: 'paragraph', nodes: [text('level 10')] };
    for (let level = 10; level >= 1; level--) {
      list = {
        object: 'block',
        type: 'list-unordered',
        nodes: [
          { object: 'block', type: 'list-item', nodes: [{ object: 'block', type: 'paragraph', nodes: [text(`level ${level}`)] }, list] },
        ],
      };
    }
    const body = { page: page.id, body: { document: { object: 'document', nodes: [list] } } };
    expect(jsonDepth(JSON.stringify(body))).toBeGreaterThan(45);
    const res = await admin().post(`/v1/spaces/${space.id}/comments`, body);
    expect(res.status).toBe(200);
    expect(res.body.body.markdown).toMatch(/- \*\*level 1\*\*/);
    expect(res.body.body.markdown).toMatch(/ {18}- \*\*level 10\*\*/);
  });

  it('still names the path of a U+0000 in the body', async () => {
    const space = await newSpace(admin(), org.id);
    const res = await postRaw(`/v1/spaces/${space.id}/change-requests`, '{"subject":"a","x":[{"y":"b\\u0000"}]}');
    expect(res.body.error).toEqual({ code: 400, message: 'body.x.0.y must not contain the character U+0000' });
    const key = await postRaw(`/v1/spaces/${space.id}/change-requests`, '{"x":{"\\u0000":1}}');
    expect(key.body.error).toEqual({ code: 400, message: 'body.x (a key) must not contain the character U+0000' });
  });
});

/** Inserts a chain of `count` pages, each inside the previous one, under `into` (top level when null); ids top down. */
async function insertChain(api: Api, spaceId: string, crId: string, count: number, into: string | null): Promise<string[]> {
  const ids: string[] = [];
  let parent = into;
  for (let start = 0; start < count; start += 50) {
    const changes = Array.from({ length: Math.min(50, count - start) }, (_, i) => ({
      operation: 'insert_page',
      ref: `level-${start + i}`,
      ...(i > 0 ? { into: `level-${start + i - 1}` } : parent ? { into: parent } : {}),
      title: `Level ${start + i + 1}`,
      document: { markdown: `Page ${start + i + 1}\n` },
    }));
    const res = await edit(api, spaceId, crId, changes);
    for (const change of res.changes) ids.push(change.page.id);
    parent = ids[ids.length - 1];
  }
  return ids;
}

/** Every page of a presented tree (iteratively) and how deep the presentation nests. */
function walkTree(pages: any[]): { count: number; nesting: number; byId: Map<string, any> } {
  const byId = new Map<string, any>();
  let nesting = 0;
  const stack = pages.map((page) => ({ page, depth: 1 }));
  while (stack.length) {
    const { page, depth } = stack.pop()!;
    byId.set(page.id, page);
    nesting = Math.max(nesting, depth);
    for (const child of page.pages) stack.push({ page: child, depth: depth + 1 });
  }
  return { count: byId.size, nesting, byId };
}

describe('page tree depth', () => {
  it(`builds a tree ${MAX_PAGE_DEPTH} levels deep, refuses any write that goes one deeper (400, nothing changed), and reads the tree`, async () => {
    const api = admin();
    const space = await newSpace(api, org.id);
    const cr = await newChangeRequest(api, space.id);
    const chain = await insertChain(api, space.id, cr.id, MAX_PAGE_DEPTH, null);
    const deepest = chain[MAX_PAGE_DEPTH - 1];
    const side = await edit(api, space.id, cr.id, [
      { operation: 'insert_page', ref: 'side', title: 'Side', document: { markdown: '' } },
      { operation: 'insert_page', into: 'side', title: 'Side child', document: { markdown: '' } },
    ]);
    const before = (await api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).body.revision;

    const attempts: [string, unknown[]][] = [
      ['insert under the deepest page', [{ operation: 'insert_page', into: deepest, title: 'Too deep', document: { markdown: '' } }]],
      [
        'a valid insert, then one too deep (the batch is all or nothing)',
        [
          { operation: 'insert_page', title: 'Fine', document: { markdown: '' } },
          { operation: 'insert_page', ref: 'a', into: chain[MAX_PAGE_DEPTH - 2], title: 'Also fine', document: { markdown: '' } },
          { operation: 'insert_page', into: 'a', title: 'Too deep', document: { markdown: '' } },
        ],
      ],
      // Moving a page with a child under the page at depth 99 puts the child at 101.
      ['move a subtree under a deep page', [{ operation: 'update_page', page: side.changes[0].page.id, into: chain[MAX_PAGE_DEPTH - 2] }]],
    ];
    for (const [what, changes] of attempts) {
      const res = await postChanges(api, space.id, cr.id, changes);
      expect([what, res.status]).toEqual([what, 400]);
      expect(res.body.error).toEqual({
        code: 400,
        message: expect.stringMatching(
          new RegExp(
            `^changes\\[\\d\\]: into: this would put a page 101 levels deep; pages may be nested at most ${MAX_PAGE_DEPTH} levels deep$`,
          ),
        ),
      });
    }
    expect((await api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).body.revision).toBe(before);

    // Within the limit, the tree reads whole, for a reader too, with the deepest page's path.
    const reader = org.members.read.api;
    const tree = await contentPages(reader, space.id, cr.id);
    const walked = walkTree(tree);
    expect(walked.count).toBe(1 + MAX_PAGE_DEPTH + 2);
    expect(walked.nesting).toBe(MAX_PAGE_DEPTH);
    expect(walked.byId.get(deepest).path.split('/')).toHaveLength(MAX_PAGE_DEPTH);
    expect((await reader.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`)).status).toBe(200);
    // A move that stays within the limit is fine.
    const moved = await postChanges(api, space.id, cr.id, [
      { operation: 'update_page', page: side.changes[0].page.id, into: chain[MAX_PAGE_DEPTH - 3] },
    ]);
    expect(moved.status).toBe(200);
  });

  it('reads a tree 2,200 levels deep that was written before the limit: every reader gets 200, never a 500', async () => {
    const space = await newSpace(admin(), org.id);
    const depth = 2_200;
    const pages: PageMap = {};
    const ids: string[] = [];
    for (let i = 0; i < depth; i++) {
      const id = `deep${String(i).padStart(5, '0')}`;
      ids.push(id);
      pages[id] = {
        id,
        parentId: i === 0 ? null : ids[i - 1],
        position: positionBetween(null, null),
        type: 'document',
        title: `Level ${i + 1}`,
        slug: `l${i + 1}`,
        markdown: `Level ${i + 1}\n`,
      };
    }
    await t.orm.em.fork().transactional(async (tx) => {
      const revision = await writeRevision(tx, { spaceId: space.id, parents: [space.revision], type: 'edits', base: null, pages });
      await sql(tx, 'update space set revision_id = ? where id = ?', [revision, space.id]);
    });

    const reader = org.members.read.api;
    const listed = await reader.get(`/v1/spaces/${space.id}/content/pages`);
    expect(listed.status).toBe(200);
    const walked = walkTree(listed.body.pages);
    // Every page is there; below the limit, pages hang under their ancestor at the limit, in order, with their real paths.
    expect(walked.count).toBe(depth);
    expect(walked.nesting).toBe(MAX_PAGE_DEPTH + 1);
    const atLimit = walked.byId.get(ids[MAX_PAGE_DEPTH - 1]);
    expect(atLimit.pages.map((p: { id: string }) => p.id)).toEqual(ids.slice(MAX_PAGE_DEPTH));
    expect(walked.byId.get(ids[depth - 1]).path).toBe(Array.from({ length: depth }, (_, i) => `l${i + 1}`).join('/'));
    const revision = await reader.get(`/v1/spaces/${space.id}/content`);
    expect(revision.status).toBe(200);
    expect(walkTree(revision.body.pages).count).toBe(depth);
    expect((await reader.get(`/v1/spaces/${space.id}/content/page/${ids[depth - 1]}`)).status).toBe(200);
    expect((await reader.get(`/v1/spaces/${space.id}/links`)).status).toBe(200);

    // Writes on that tree: nothing goes deeper, but its pages can still be moved up.
    const cr = await newChangeRequest(admin(), space.id);
    const deeper = await postChanges(admin(), space.id, cr.id, [
      { operation: 'insert_page', into: ids[depth - 1], title: 'Deeper', document: { markdown: '' } },
    ]);
    expect(deeper.status).toBe(400);
    expect(deeper.body.error.message).toMatch(/at most 100 levels deep/);
    const up = await postChanges(admin(), space.id, cr.id, [{ operation: 'update_page', page: ids[depth - 50], into: null }]);
    expect(up.status).toBe(200);
    const after = walkTree(await contentPages(reader, space.id, cr.id));
    expect(after.count).toBe(depth);
    expect(after.byId.get(ids[depth - 1]).path).toBe(Array.from({ length: 50 }, (_, i) => `l${depth - 49 + i}`).join('/'));
  });
});

describe('page tree depth of imports', () => {
  it('refuses a zip whose folders nest pages deeper than the limit, with nothing imported; one level less imports', async () => {
    // Folders become pages: 100 folders deep, a page inside the last one is at depth 101.
    const nested = (folders: number) => zipOf({ 'README.md': '# Home\n', [`${'d/'.repeat(folders)}page.md`]: '# Deep page\n' });
    fx.routes.set('/too-deep.zip', { type: 'application/zip', body: nested(MAX_PAGE_DEPTH) });
    fx.routes.set('/deep.zip', { type: 'application/zip', body: nested(MAX_PAGE_DEPTH - 1) });
    const space = await newSpace(admin(), org.id);
    const before = (await admin().get(`/v1/spaces/${space.id}`)).body.revision;
    const refused = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'zip', url: `${fx.base}/too-deep.zip` });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/TOO_DEEP.*101 levels deep; pages may be nested at most 100 levels deep/);
    expect((await admin().get(`/v1/spaces/${space.id}`)).body.revision).toBe(before);
    const imported = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'zip', url: `${fx.base}/deep.zip` });
    expect(imported.status).toBe(201);
    const walked = walkTree(await contentPages(admin(), space.id));
    expect(walked.nesting).toBe(MAX_PAGE_DEPTH);
  });
});

describe('a large change-request batch', () => {
  it('applies 50 pages of about 10 MB in all, each named as its markdown says', async () => {
    const space = await newSpace(admin(), org.id);
    const cr = await newChangeRequest(admin(), space.id);
    // About 200 KB of ordinary markdown per page.
    const body = (i: number) =>
      Array.from(
        { length: 2_400 },
        (_, j) => `## Part ${i}.${j}\n\nSome *text* with a [link](./p${j}.md) and \`code\`.\n\n- a\n- b\n`,
      ).join('\n');
    const heads: [string, string][] = [
      ['---\ntitle: From front matter\ndescription: About it\n---\n\n# Not this one\n', 'From front matter'],
      ['# Leading *heading*\n\n', 'Leading heading'],
      ['Setext heading\n===\n\n', 'Setext heading'],
      ['<!-- generated, do not edit -->\n# After a comment\n\n', 'After a comment'],
      ['<div align="center">\n<img src="logo.png">\n</div>\n\n# After an HTML block\n\n', 'After an HTML block'],
    ];
    const changes = Array.from({ length: 50 }, (_, i) => ({
      operation: 'insert_page',
      document: { markdown: heads[i % heads.length][0].replace(/(heading|matter|comment|block)\b/, `$1 ${i}`) + body(i) },
    }));
    // One more: a title under a leading comment too long to read gets none, so the title given is kept.
    changes[49] = {
      operation: 'insert_page',
      title: 'Given title',
      document: { markdown: `<!--\n${'x'.repeat(70_000)}\n-->\n# Too far down\n` },
    } as never;
    const payload = JSON.stringify({ changes });
    expect(payload.length).toBeGreaterThan(9_000_000);
    const res = await postChanges(admin(), space.id, cr.id, changes);
    expect(res.status).toBe(200);
    const titles = (await contentPages(admin(), space.id, cr.id)).map((p) => p.title);
    const expected = Array.from({ length: 49 }, (_, i) =>
      heads[i % heads.length][1].replace(/(heading|matter|comment|block)\b/, `$1 ${i}`),
    );
    expect(titles).toEqual(['Untitled', ...expected, 'Given title']);
  });
});
