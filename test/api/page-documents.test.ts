import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace, PNG_2X3 } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Pages read as GitBook's document model, through the space's content (`format=document`) and
 * through revision reads (`…/document`): GitBook's blocks come out as blocks, references to other
 * pages and to files as GitBook references, and conditions are decided when asked to.
 */
let t: TestApp;
let org: TestOrg;
let spaceId: string;
let revisionId: string;
let guideId: string;
let installId: string;
let fileId: string;

const GUIDE = [
  'Read [the installation](install.md#requirements) first.',
  '',
  '{% hint style="warning" %}',
  'Back up your data.',
  '{% endhint %}',
  '',
  '| Name | Value |',
  '| --- | --- |',
  '| mode | fast |',
  '',
  '![Diagram](.gitbook/assets/dot.png)',
  '',
  '{% if false %}',
  'Never shown.',
  '{% endif %}',
  '',
  '{% tabs %}',
  '{% tab title="macOS" %}',
  'Use brew.',
  '{% endtab %}',
  '{% endtabs %}',
  '',
].join('\n');

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Page documents org');
  const admin = org.members.admin.api;
  const space = await newSpace(admin, org.id, { title: 'Documents', empty: true });
  spaceId = space.id;
  const cr = await newChangeRequest(admin, spaceId);
  await edit(admin, spaceId, cr.id, [
    { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
    { operation: 'insert_page', title: 'Guide', document: { markdown: GUIDE } },
    { operation: 'insert_page', title: 'Install', document: { markdown: '## Requirements\n\nA computer.\n' } },
  ]);
  await merge(admin, spaceId, cr.id);
  const content = (await admin.get(`/v1/spaces/${spaceId}/content`)).body;
  revisionId = content.id;
  const byTitle = (title: string) => content.pages.find((p: { title: string }) => p.title === title).id;
  guideId = byTitle('Guide');
  installId = byTitle('Install');
  fileId = content.files[0].id;
});
afterAll(() => t.close());

/** Every node of a document, depth first. */
function nodes(node: any): any[] {
  return [node, ...(node.nodes ?? []).flatMap(nodes), ...Object.values(node.fragments ?? {}).flatMap(nodes)];
}

describe('page documents', () => {
  it("answers the space's page with format=document as GitBook's blocks and references", async () => {
    const res = await org.members.read.api.get(`/v1/spaces/${spaceId}/content/page/${guideId}?format=document`);
    expect(res.status).toBe(200);
    expect(res.body.markdown).toBeUndefined();
    const all = nodes(res.body.document);
    const types = all.filter((n) => n.object === 'block').map((n) => n.type);
    expect(types).toEqual(expect.arrayContaining(['hint', 'table', 'images', 'tabs', 'if']));
    const link = all.find((n) => n.object === 'inline' && n.type === 'link');
    expect(link.data.ref).toEqual({ kind: 'anchor', anchor: 'requirements', page: installId });
    const image = all.find((n) => n.type === 'image');
    expect(image.data.ref).toEqual({ kind: 'file', file: fileId });
    // Without format, the markdown as stored.
    const plain = await org.members.read.api.get(`/v1/spaces/${spaceId}/content/page/${guideId}`);
    expect(plain.body.markdown).toBe(GUIDE);
  });

  it('answers the revision page document, with conditions decided only when evaluated', async () => {
    const path = `/v1/spaces/${spaceId}/revisions/${revisionId}/page/${guideId}/document`;
    const raw = await org.members.read.api.get(path);
    expect(raw.status).toBe(200);
    expectMatchesGitBook('getPageDocumentInRevisionById', raw.body);
    expect(nodes(raw.body).some((n) => n.type === 'if')).toBe(true);
    const evaluated = await org.members.read.api.get(`${path}?evaluated=deterministic-only&dereferenced=reusable-contents`);
    expect(nodes(evaluated.body).some((n) => n.type === 'if')).toBe(false);
    expect(JSON.stringify(evaluated.body)).not.toContain('Never shown');
    // Asked again (answered from the converted documents), the same.
    expect((await org.members.read.api.get(path)).body).toEqual(raw.body);
  });
});
