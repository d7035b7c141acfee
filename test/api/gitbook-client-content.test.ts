import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback, PNG_2X3 } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives every content and change-request operation this service has: change
 * requests from creation to merge and update, revisions, pages, files and search. Every response
 * body is checked against the schema GitBook's OpenAPI document gives for that operation.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let space: { id: string; revision: string };

beforeAll(async () => {
  t = await startTestApp();
  const serverUrl = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client content org');
  api = new GitBookAPI({ endpoint: serverUrl, authToken: org.members.admin.token });
  space = (await api.orgs.createSpace(org.id, { title: 'Client content' })).data;
});
afterAll(() => t.close());

describe('GitBook client: content and change requests', () => {
  it('reads the content a new space starts with', async () => {
    const revision = (await api.spaces.getCurrentRevision(space.id)).data;
    expectMatchesGitBook('getCurrentRevision', revision);
    expect(revision.id).toBe(space.revision);
    expectMatchesGitBook('getCurrentRevision', (await api.spaces.getCurrentRevision(space.id, { metadata: false, computed: false })).data);
    const pages = (await api.spaces.listPages(space.id)).data;
    expectMatchesGitBook('listPages', pages);
    expect(pages.pages.map((p: { title: string }) => p.title)).toEqual(['Untitled']);
    const page = (await api.spaces.getPageById(space.id, pages.pages[0].id)).data;
    expectMatchesGitBook('getPageById', page);
    expectMatchesGitBook('getPageById', (await api.spaces.getPageById(space.id, pages.pages[0].id, { format: 'markdown' })).data);
    const files = (await api.spaces.listFiles(space.id)).data;
    expectMatchesGitBook('listFiles', files);
    expect(files.items).toEqual([]);
  });

  it('creates, edits, lists, merges and updates change requests', async () => {
    const cr = (await api.spaces.createChangeRequest(space.id, { subject: 'Write the guide' })).data;
    expectMatchesGitBook('createChangeRequest', cr);
    expect(cr).toMatchObject({ object: 'change-request', number: 1, status: 'open', subject: 'Write the guide' });
    const second = (await api.spaces.createChangeRequest(space.id, {})).data;
    expectMatchesGitBook('createChangeRequest', second);

    // Default answer (compat): the change request.
    const compat = (
      await api.spaces.updateChangeRequestContent(space.id, cr.id, {
        changes: [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'The guide explains everything.\n' } }],
      })
    ).data;
    expectMatchesGitBook('updateChangeRequestContent', compat);
    expect(compat.id).toBe(cr.id);
    // compat=false: the change request, the pages touched and the files inserted.
    const detailed = (
      await api.spaces.updateChangeRequestContent(
        space.id,
        cr.id,
        {
          changes: [
            { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
            {
              operation: 'insert_page',
              ref: 'api',
              title: 'API',
              document: { markdown: '# API\n\nReference of the platypus API.\n\n## Authentication\n\nUse tokens.\n' },
            },
          ],
        },
        { compat: false },
      )
    ).data;
    expectMatchesGitBook('updateChangeRequestContent', detailed);
    expect(detailed.changes.map((c: { object: string }) => c.object)).toEqual(['created_page']);
    const apiPageId = detailed.changes[0].page.id;
    const fileId = detailed.insertedFiles[0].id;

    const inCr = (await api.spaces.getRevisionOfChangeRequestById(space.id, cr.id)).data;
    expectMatchesGitBook('getRevisionOfChangeRequestById', inCr);
    expect(inCr.type).toBe('edits');
    const crPages = (await api.spaces.listPagesInChangeRequest(space.id, cr.id)).data;
    expectMatchesGitBook('listPagesInChangeRequest', crPages);
    expect(crPages.pages.map((p: { title: string }) => p.title)).toEqual(['Untitled', 'Guide', 'API']);
    expectMatchesGitBook('getPageInChangeRequestById', (await api.spaces.getPageInChangeRequestById(space.id, cr.id, apiPageId)).data);
    const crFiles = (await api.spaces.listFilesInChangeRequestById(space.id, cr.id, { limit: 10 })).data;
    expectMatchesGitBook('listFilesInChangeRequestById', crFiles);
    expect(crFiles.items.map((f: { id: string }) => f.id)).toEqual([fileId]);
    expectMatchesGitBook('getFileInChangeRequestById', (await api.spaces.getFileInChangeRequestById(space.id, cr.id, fileId)).data);

    const listed = (await api.spaces.listChangeRequestsForSpace(space.id, { limit: 1 })).data;
    expectMatchesGitBook('listChangeRequestsForSpace', listed);
    expect(listed.count).toBe(2);
    const rest = (await api.spaces.listChangeRequestsForSpace(space.id, { page: listed.next.page })).data;
    expectMatchesGitBook('listChangeRequestsForSpace', rest);
    expect([...listed.items, ...rest.items].map((c: { id: string }) => c.id).sort()).toEqual([cr.id, second.id].sort());

    const renamed = (await api.spaces.updateChangeRequestById(space.id, cr.id, { subject: 'Guide and API' })).data;
    expectMatchesGitBook('updateChangeRequestById', renamed);
    expect(renamed.subject).toBe('Guide and API');
    const drafted = (await api.spaces.updateChangeRequestById(space.id, second.id, { status: 'draft' })).data;
    expectMatchesGitBook('updateChangeRequestById', drafted);
    expectMatchesGitBook('listChangeRequestsForSpace', (await api.spaces.listChangeRequestsForSpace(space.id, { status: 'draft' })).data);
    await api.spaces.updateChangeRequestById(space.id, second.id, { status: 'open' });

    const merged = (await api.spaces.mergeChangeRequest(space.id, cr.id)).data;
    expectMatchesGitBook('mergeChangeRequest', merged);
    expect(merged.result).toBe('merge');
    const after = (await api.spaces.getChangeRequestById(space.id, cr.id)).data;
    expectMatchesGitBook('getChangeRequestById', after);
    expect(after).toMatchObject({ status: 'merged', revisionMerged: merged.revision });
    expectMatchesGitBook('getChangeRequestById', (await api.spaces.getChangeRequestById(space.id, String(second.number))).data);

    const current = (await api.spaces.getCurrentRevision(space.id)).data;
    expectMatchesGitBook('getCurrentRevision', current);
    expect(current).toMatchObject({ id: merged.revision, type: 'merge' });
    const pages = (await api.spaces.listPages(space.id)).data;
    expectMatchesGitBook('listPages', pages);
    expect(pages.pages.map((p: { title: string }) => p.title)).toEqual(['Untitled', 'Guide', 'API']);
    expectMatchesGitBook('getPageById', (await api.spaces.getPageById(space.id, apiPageId)).data);
    const files = (await api.spaces.listFiles(space.id)).data;
    expectMatchesGitBook('listFiles', files);
    expect(files.items.map((f: { id: string }) => f.id)).toEqual([fileId]);
    const file = (await api.spaces.getFileById(space.id, fileId)).data;
    expectMatchesGitBook('getFileById', file);
    expect(file).toMatchObject({ name: 'dot.png', contentType: 'image/png', dimensions: { width: 2, height: 3 } });

    // The other change request is behind: updating it pulls the merged pages in.
    expect((await api.spaces.getChangeRequestById(space.id, second.id)).data.outdated).toBe(true);
    const updated = (await api.spaces.updateChangeRequest(space.id, second.id)).data;
    expectMatchesGitBook('updateChangeRequest', updated);
    expect(updated.result).toBe('update');
    const pulled = (await api.spaces.getRevisionOfChangeRequestById(space.id, second.id)).data;
    expectMatchesGitBook('getRevisionOfChangeRequestById', pulled);
    expect(pulled.type).toBe('update');
    expectMatchesGitBook('listPagesInChangeRequest', (await api.spaces.listPagesInChangeRequest(space.id, second.id)).data);
    expectMatchesGitBook('getChangeRequestById', (await api.spaces.getChangeRequestById(space.id, second.id)).data);

    // Updated and deleted pages in a detailed answer.
    const untitledId = pages.pages[0].id;
    const removed = (
      await api.spaces.updateChangeRequestContent(
        space.id,
        second.id,
        {
          changes: [
            { operation: 'update_page', page: untitledId, title: 'Welcome' },
            { operation: 'delete_page', page: apiPageId },
          ],
        },
        { compat: false },
      )
    ).data;
    expectMatchesGitBook('updateChangeRequestContent', removed);
    expect(removed.changes).toEqual([
      {
        object: 'updated_page',
        page: { object: 'page', id: untitledId, urls: { location: expect.stringMatching(new RegExp(`/content/page/${untitledId}$`)) } },
      },
      { object: 'deleted_page', page: apiPageId },
    ]);
    const location = await org.members.admin.api.get(new URL(removed.changes[0].page.urls.location).pathname);
    expect(location.body.title).toBe('Welcome');
  });

  it('searches the merged content', async () => {
    const found = (await api.spaces.searchSpaceContent(space.id, { query: 'platypus' })).data;
    expectMatchesGitBook('searchSpaceContent', found);
    expect(found.items.map((i: { title: string }) => i.title)).toEqual(['API']);
    const byTitle = (await api.spaces.searchSpaceContent(space.id, { query: 'guide', limit: 1 })).data;
    expectMatchesGitBook('searchSpaceContent', byTitle);
    expect(byTitle.items[0].title).toBe('Guide');
    const none = (await api.spaces.searchSpaceContent(space.id, { query: 'nothing-like-this' })).data;
    expectMatchesGitBook('searchSpaceContent', none);
    expect(none).toEqual({ items: [], count: 0 });
  });
});
