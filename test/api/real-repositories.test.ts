import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { client, createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { sql } from '../support/sql.ts';

/**
 * Two real GitBook-layout repositories (test/fixtures/repos/SOURCES.md) through Git Sync: every
 * page's document is one GitBook's schema accepts, the blocks are recognized (what is left as
 * text is counted, and must be what is listed here), and exporting back to the repository
 * changes no byte, twice over.
 */

let t: TestApp;
let org: TestOrg;
let git: GitServer;

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Real repositories');
  git = await startGitServer();
});
afterAll(async () => {
  await git?.close();
  await t?.close();
});

const FIXTURES = new URL('../fixtures/repos/', import.meta.url).pathname;

/** Every file of a fixture folder, by path under `prefix`. */
function filesOf(folder: string, prefix = ''): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[prefix + relative(folder, path)] = readFileSync(path);
    }
  };
  walk(folder);
  return out;
}

type Node = { object?: string; type?: string; nodes?: Node[]; leaves?: { text: string }[]; fragments?: Node[]; [key: string]: unknown };

/**
 * GitBook syntax a document holds as text where a block or an inline should be: liquid tags
 * (`{% name`) and HTML elements (`<name`) in text outside code, by name.
 */
function textLeftovers(document: Node, into: Map<string, number>): void {
  const visit = (node: Node, inCode: boolean) => {
    const code = inCode || node.type === 'code' || node.type === 'code-line' || node.type === 'math' || node.type === 'inline-math';
    for (const leaf of node.leaves ?? []) {
      if (code || (leaf as { marks?: { type: string }[] }).marks?.some((m) => m.type === 'code')) continue;
      for (const match of leaf.text.matchAll(/\{%-?\s*([a-z-]+)|<\/?([a-z][a-z0-9-]*)[\s>/]/gi)) {
        const name = match[1] ? `{% ${match[1]} %}` : `<${match[2].toLowerCase()}>`;
        into.set(name, (into.get(name) ?? 0) + 1);
      }
    }
    for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) visit(child, code);
  };
  visit(document, false);
}

interface Repository {
  name: string;
  files: Record<string, Buffer>;
  projectDirectory?: string;
  /** What stays text, by tag (see textLeftovers), and why. */
  leftovers: Record<string, number>;
}

const REPOSITORIES: Repository[] = [
  {
    name: 'gitbook-documentation',
    files: filesOf(join(FIXTURES, 'gitbook-documentation'), 'documentation/'),
    projectDirectory: 'documentation',
    // A card's text says "Drop in a &#x3C;script> tag": text that reads `<script>`, written escaped.
    leftovers: { '<script>': 1 },
  },
  {
    name: 'fluent-bit-docs',
    files: filesOf(join(FIXTURES, 'fluent-bit-docs')),
    // pipeline/inputs/windows-event-log.md opens `{% tabs %}` and a second `{% tab %}` and never
    // closes them: the unclosed tags stay as written, as text, and the rest of the page reads on.
    leftovers: { '{% endtab %}': 1, '{% tab %}': 2, '{% tabs %}': 1 },
  },
];

/** Waits until the space's Git Sync requests number `count` and none is still waiting; their states. */
async function settled(spaceId: string, count: number): Promise<string[]> {
  return eventually(async () => {
    const rows = await sql<{ state: string }>(
      t.orm.em.fork(),
      'select state from git_sync_request where space_id = ? order by requested_at, id',
      [spaceId],
    );
    const states = rows.map((r) => r.state);
    return states.length >= count && !states.includes('queued') ? states : undefined;
  }, 170_000);
}

type PageOut = { id: string; type: string; pages?: PageOut[] };
const flatten = (pages: PageOut[]): PageOut[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);

describe.each(REPOSITORIES)('$name through Git Sync', (repository) => {
  const api = () => org.members.admin.api;
  let spaceId: string;
  let head: string;

  it('imports every page, and each page document, the revision and the space are what GitBook’s schemas say', async () => {
    head = git.commit(repository.name, repository.files, { message: 'The docs' });
    spaceId = (await api().post(`/v1/orgs/${org.id}/spaces`, { title: repository.name })).body.id;
    const started = await api().post(`/v1/spaces/${spaceId}/git/import`, {
      url: git.url(repository.name),
      ref: 'refs/heads/main',
      ...(repository.projectDirectory ? { repoProjectDirectory: repository.projectDirectory } : {}),
    });
    expect(started.status).toBe(204);
    const info = await eventually(async () => {
      const res = await api().get(`/v1/spaces/${spaceId}/git/info`);
      return res.body.status !== 'idle' && res.body.lastSyncedCommit === head ? res.body : undefined;
    }, 170_000);
    expect(info.status).toBe('ok');

    const space = await api().get(`/v1/spaces/${spaceId}`);

    // Published, and read as GitBook's renderer reads it: the URL looked up with a site lookup
    // token, then everything with the visitor's token of its answer.
    const hostname = `${repository.name}.real-repositories.test`;
    const site = (await api().post(`/v1/orgs/${org.id}/sites`, { title: repository.name, visibility: 'public', spaces: [spaceId] })).body;
    expect((await api().patch(`/v1/orgs/${org.id}/sites/${site.id}`, { hostname })).status).toBe(200);
    expect((await api().post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const lookupToken = (await api().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token;
    const resolved = await client(t.app, lookupToken).post('/v1/urls/published', {
      url: `https://${hostname}/`,
      visitor: { unsignedClaims: {}, type: 'human' },
      redirectOnError: false,
    });
    expect(resolved.status).toBe(200);
    const visitor = client(t.app, resolved.body.apiToken);
    const revision = await visitor.get(`/v1/spaces/${spaceId}/revisions/${resolved.body.revision}?metadata=true`);
    expect(revision.status).toBe(200);
    expectMatchesGitBook('getRevisionById', revision.body);

    const documents = flatten(revision.body.pages).filter((p) => p.type === 'document');
    const markdownFiles = Object.keys(repository.files).filter((p) => p.endsWith('.md') && !/(^|\/)SUMMARY\.md$/.test(p));
    expect(documents.length).toBeGreaterThan(markdownFiles.length * 0.9);
    const leftovers = new Map<string, number>();
    for (const page of documents) {
      const res = await visitor.get(`/v1/spaces/${spaceId}/revisions/${resolved.body.revision}/page/${page.id}/document`);
      expect(res.status).toBe(200);
      expectMatchesGitBook('getPageDocumentInRevisionById', res.body);
      textLeftovers(res.body, leftovers);
    }
    expect(Object.fromEntries([...leftovers].sort())).toEqual(repository.leftovers);
    expectMatchesGitBook('getSpaceById', space.body);
  }, 180_000);

  it('exports back to the repository without changing a byte, and again', async () => {
    for (const round of [1, 2]) {
      const res = await api().post(`/v1/spaces/${spaceId}/git/export`, {
        url: git.url(repository.name),
        ref: 'refs/heads/main',
        commitMessage: `Round ${round}`,
        ...(repository.projectDirectory ? { repoProjectDirectory: repository.projectDirectory } : {}),
      });
      expect(res.status).toBe(204);
      expect((await settled(spaceId, 1 + round)).at(-1)).not.toBe('failed');
      // Nothing changed, so nothing was committed: the branch is where the import read it.
      expect(git.head(repository.name)).toBe(head);
    }
    const files = git.read(repository.name);
    expect(Object.keys(files).sort()).toEqual(Object.keys(repository.files).sort());
    for (const [path, bytes] of Object.entries(repository.files)) expect([path, files[path].equals(bytes)]).toEqual([path, true]);
  }, 180_000);
});
