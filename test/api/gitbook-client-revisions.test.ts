import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback, PNG_2X3 } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { loadPageMap, writeRevision } from '../../src/db/content.ts';
import { setSpaceRevision } from '../../src/db/git-sync.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';

/**
 * GitBook's own client drives every read its site renderer makes of a published space: a revision
 * by id, its pages (by id, by path, their documents), files, reusable contents and page meta
 * links, with the parameters the renderer sends. Every body is checked against GitBook's schema
 * for the operation.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let spaceId: string;
let revisionId: string;
let crId: string;
let pageId: string;
let groupId: string;
let fileId: string;

beforeAll(async () => {
  t = await startTestApp();
  const serverUrl = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client revisions org');
  api = new GitBookAPI({ endpoint: serverUrl, authToken: org.members.admin.token });
  spaceId = (await api.orgs.createSpace(org.id, { title: 'Client revisions' })).data.id;
  const cr = (await api.spaces.createChangeRequest(spaceId, { subject: 'Write' })).data;
  const edited = (
    await api.spaces.updateChangeRequestContent(
      spaceId,
      cr.id,
      {
        changes: [
          { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
          { operation: 'insert_page', title: 'Reference', document: { markdown: 'All of it.\n' } },
        ],
      },
      { compat: false },
    )
  ).data;
  groupId = edited.changes[0].page.id;
  const nested = (
    await api.spaces.updateChangeRequestContent(
      spaceId,
      cr.id,
      { changes: [{ operation: 'insert_page', into: groupId, title: 'API', document: { markdown: '# API\n\nUse **tokens**.\n' } }] },
      { compat: false },
    )
  ).data;
  pageId = nested.changes[0].page.id;
  await api.spaces.mergeChangeRequest(spaceId, cr.id);
  const current = (await api.spaces.getSpaceById(spaceId)).data.revision;
  fileId = (await api.spaces.listFiles(spaceId)).data.items[0].id;
  revisionId = await transaction(forkEm(t.orm), async (tx) => {
    const pages = await loadPageMap(tx, current, true);
    const id = await writeRevision(tx, {
      spaceId,
      parents: [current],
      type: 'edits',
      base: { revisionId: current, pages },
      pages,
      reusableContents: [{ id: 'rc-intro', title: 'Shared intro', path: '.gitbook/includes/intro.md', markdown: 'Shared *text*.\n' }],
    });
    await setSpaceRevision(tx, spaceId, id);
    return id;
  });
  crId = (await api.spaces.createChangeRequest(spaceId, { subject: 'Later' })).data.id;
});
afterAll(() => t.close());

describe('GitBook client: revision reads', () => {
  it('reads a revision by id with metadata, as the renderer does', async () => {
    for (const query of [{ metadata: true }, { metadata: false, computed: false }, undefined]) {
      const revision = (await api.spaces.getRevisionById(spaceId, revisionId, query)).data;
      expectMatchesGitBook('getRevisionById', revision);
      expect(revision.reusableContents.map((r: { id: string }) => r.id)).toEqual(['rc-intro']);
    }
    const pages = (await api.spaces.listPagesInRevisionById(spaceId, revisionId)).data;
    expectMatchesGitBook('listPagesInRevisionById', pages);
  });

  it('reads pages by id and by path, as markdown and as documents', async () => {
    for (const query of [{}, { format: 'markdown', 'format.markdown.refs': 'stable' }, { format: 'document' }]) {
      const page = (await api.spaces.getPageInRevisionById(spaceId, revisionId, pageId, query)).data;
      expectMatchesGitBook('getPageInRevisionById', page);
      expect(page.id).toBe(pageId);
    }
    const evaluated = (
      await api.spaces.getPageInRevisionById(spaceId, revisionId, pageId, {
        format: 'document',
        evaluated: true,
        dereferenced: 'reusable-contents',
      })
    ).data;
    expectMatchesGitBook('getPageInRevisionById', evaluated);
    expect(evaluated.document.object).toBe('document');

    // The renderer encodes the path itself; the client sends it as given.
    const byPath = (await api.spaces.getPageInRevisionByPath(spaceId, revisionId, encodeURIComponent('reference/api'), {})).data;
    expectMatchesGitBook('getPageInRevisionByPath', byPath);
    expect(byPath.id).toBe(pageId);
    const group = (await api.spaces.getPageInRevisionByPath(spaceId, revisionId, 'reference', {})).data;
    expectMatchesGitBook('getPageInRevisionByPath', group);
    expect(group.id).toBe(groupId);
  });

  it('reads page documents with the parameters the renderer sends', async () => {
    for (const query of [{ evaluated: 'deterministic-only', dereferenced: 'reusable-contents' }, { evaluated: false }, undefined]) {
      const document = (await api.spaces.getPageDocumentInRevisionById(spaceId, revisionId, pageId, query)).data;
      expectMatchesGitBook('getPageDocumentInRevisionById', document);
      expect(JSON.stringify(document)).toContain('tokens');
    }
  });

  it('reads files', async () => {
    const files = (await api.spaces.listFilesInRevisionById(spaceId, revisionId, { limit: 10 })).data;
    expectMatchesGitBook('listFilesInRevisionById', files);
    expect(files.items.map((f: { id: string }) => f.id)).toEqual([fileId]);
    const file = (await api.spaces.getFileInRevisionById(spaceId, revisionId, fileId)).data;
    expectMatchesGitBook('getFileInRevisionById', file);
  });

  it('reads reusable contents and their documents', async () => {
    const content = (await api.spaces.getReusableContentInRevisionById(spaceId, revisionId, 'rc-intro')).data;
    expectMatchesGitBook('getReusableContentInRevisionById', content);
    expect(content.title).toBe('Shared intro');
    const document = (
      await api.spaces.getReusableContentDocumentInRevisionById(spaceId, revisionId, 'rc-intro', { evaluated: 'deterministic-only' })
    ).data;
    expectMatchesGitBook('getReusableContentDocumentInRevisionById', document);
    expect(JSON.stringify(document)).toContain('Shared ');
    const inSpace = (await api.spaces.getReusableContentById(spaceId, 'rc-intro')).data;
    expectMatchesGitBook('getReusableContentById', inSpace);
    const inChangeRequest = (await api.spaces.getReusableContentInChangeRequestById(spaceId, crId, 'rc-intro')).data;
    expectMatchesGitBook('getReusableContentInChangeRequestById', inChangeRequest);
  });

  it('reads page meta links of a revision, of the content and of a change request', async () => {
    expectMatchesGitBook('listRevisionPageMetaLinks', (await api.spaces.listRevisionPageMetaLinks(spaceId, revisionId, pageId)).data);
    expectMatchesGitBook('listSpacePageMetaLinks', (await api.spaces.listSpacePageMetaLinks(spaceId, pageId)).data);
    expectMatchesGitBook('listChangeRequestPageMetaLinks', (await api.spaces.listChangeRequestPageMetaLinks(spaceId, crId, pageId)).data);
  });

  it('answers 404 for a revision the space does not have', async () => {
    await expect(api.spaces.getRevisionById(spaceId, 'no-such-revision')).rejects.toMatchObject({
      code: 404,
      errorMessage: 'Revision not found',
    });
  });
});
