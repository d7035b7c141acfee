import { createHash } from 'node:crypto';
import type { Em } from './orm.ts';
import { inChunks, sql } from './sql.ts';
import { newId } from '../domain/ids.ts';
import { deepEqual, type PageMap, type PageNode } from '../domain/content/tree.ts';

/**
 * Reading and writing revisions. A revision's pages are index rows (`revision_page`) pointing at
 * content-addressed documents (`page_document`): writing a revision copies the index rows of the
 * pages it does not touch inside PostgreSQL and stores only the documents that are new.
 *
 * Page maps can carry documents as text or as tokens (`documentToken(hash)`) standing for a stored
 * document, so merges and copies never load text they do not need.
 */

/** Rows per statement of a bulk revision write. */
const WRITE_CHUNK = 2000;
/** Characters of markdown per statement of a bulk document write (each statement is one step of the event loop). */
const WRITE_CHUNK_CHARS = 1024 * 1024;

const TOKEN = '\u0000document:';
export const documentToken = (hash: string) => `${TOKEN}${hash}`;
export const tokenHash = (markdown: string) => (markdown.startsWith(TOKEN) ? markdown.slice(TOKEN.length) : null);
export const documentHash = (markdown: string) => tokenHash(markdown) ?? createHash('sha256').update(markdown).digest('hex');

export interface FileRow {
  id: string;
  name: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  sha256: string;
}

export interface RevisionRow {
  id: string;
  space_id: string;
  parents: string[];
  type: string;
  created_at: Date | string;
  change_request_id: string | null;
  git: Record<string, unknown> | null;
}

interface PageRow {
  page_id: string;
  parent_id: string | null;
  position: string;
  meta: Omit<PageNode, 'id' | 'parentId' | 'position' | 'markdown'>;
  document_hash: string;
  markdown?: string;
}

function toNode(row: PageRow, markdown: string): PageNode {
  return { ...row.meta, id: row.page_id, parentId: row.parent_id, position: row.position, markdown } as PageNode;
}

function metaOf(node: PageNode): PageRow['meta'] {
  const { id: _id, parentId: _p, position: _pos, markdown: _m, ...meta } = node;
  return meta;
}

export async function loadRevision(em: Em, revisionId: string): Promise<RevisionRow | undefined> {
  const rows = await sql<RevisionRow>(em, 'select * from revision where id = ?', [revisionId]);
  return rows[0];
}

/** Every page of a revision; documents as text (`withText`) or as tokens. */
export async function loadPageMap(em: Em, revisionId: string, withText: boolean): Promise<PageMap> {
  const rows = withText
    ? await sql<PageRow>(
        em,
        `select rp.page_id, rp.parent_id, rp.position, rp.meta, rp.document_hash, d.markdown
           from revision_page rp
           join revision r on r.id = rp.revision_id
           left join page_document d on d.space_id = r.space_id and d.hash = rp.document_hash
          where rp.revision_id = ?`,
        [revisionId],
      )
    : await sql<PageRow>(em, 'select page_id, parent_id, position, meta, document_hash from revision_page where revision_id = ?', [
        revisionId,
      ]);
  const map: PageMap = {};
  for (const row of rows) map[row.page_id] = toNode(row, withText ? (row.markdown ?? '') : documentToken(row.document_hash));
  return map;
}

/** One page with its document, without loading the rest of the tree. */
export async function loadPage(em: Em, revisionId: string, pageId: string): Promise<PageNode | undefined> {
  const rows = await sql<PageRow>(
    em,
    `select rp.page_id, rp.parent_id, rp.position, rp.meta, rp.document_hash, d.markdown
       from revision_page rp
       join revision r on r.id = rp.revision_id
       left join page_document d on d.space_id = r.space_id and d.hash = rp.document_hash
      where rp.revision_id = ? and rp.page_id = ?`,
    [revisionId, pageId],
  );
  return rows[0] ? toNode(rows[0], rows[0].markdown ?? '') : undefined;
}

/** Replaces document tokens of the given pages by their text. */
export async function loadDocuments(em: Em, spaceId: string, hashes: string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await sql<{ hash: string; markdown: string }>(
    em,
    'select hash, markdown from page_document where space_id = ? and hash in (select jsonb_array_elements_text(?::jsonb))',
    [spaceId, JSON.stringify([...new Set(hashes)])],
  );
  return new Map(rows.map((r) => [r.hash, r.markdown]));
}

export async function loadFiles(em: Em, revisionId: string): Promise<FileRow[]> {
  return sql<FileRow>(
    em,
    `select file_id as id, name, content_type as "contentType", size::int as size, width, height, sha256
       from revision_file where revision_id = ? order by name, file_id`,
    [revisionId],
  );
}

export interface WriteRevisionInput {
  spaceId: string;
  parents: string[];
  type: 'edits' | 'merge' | 'update' | 'rollback';
  changeRequestId?: string | null;
  /** The revision the new one is written against: its unchanged rows are copied, not rewritten. */
  base: { revisionId: string; pages: PageMap } | null;
  pages: PageMap;
  /** Files added by this revision (others are copied from the base unless listed in `removedFiles`). */
  addedFiles?: FileRow[];
  removedFiles?: string[];
  id?: string;
}

/** Writes a new immutable revision and returns its id. Call inside a transaction. */
export async function writeRevision(em: Em, input: WriteRevisionInput): Promise<string> {
  const id = input.id ?? newId();
  const now = new Date();
  await sql(em, 'insert into revision (id, space_id, parents, type, created_at, change_request_id) values (?, ?, ?::text[], ?, ?, ?)', [
    id,
    input.spaceId,
    `{${input.parents.map((p) => `"${p}"`).join(',')}}`,
    input.type,
    now,
    input.changeRequestId ?? null,
  ]);
  const basePages = input.base?.pages ?? {};
  const changed: PageNode[] = [];
  for (const pageId of Object.keys(input.pages)) {
    const next = input.pages[pageId];
    const before = basePages[pageId];
    if (!before || !deepEqual(before, next)) changed.push(next);
  }
  const touched = new Set(changed.map((c) => c.id));
  const untouched = Object.keys(input.pages).filter((pageId) => basePages[pageId] && !touched.has(pageId));
  if (input.base && untouched.length > 0) {
    const removed = Object.keys(basePages).filter((pageId) => !input.pages[pageId]);
    const excluded = [...touched, ...removed];
    await sql(
      em,
      `insert into revision_page (revision_id, page_id, parent_id, position, meta, document_hash)
       select ?, page_id, parent_id, position, meta, document_hash from revision_page
        where revision_id = ? and page_id not in (select jsonb_array_elements_text(?::jsonb))`,
      [id, input.base.revisionId, JSON.stringify(excluded)],
    );
  }
  if (changed.length > 0) {
    const hashes = new Map(changed.map((p) => [p.id, documentHash(p.markdown)]));
    const documents = changed.filter((p) => tokenHash(p.markdown) === null).map((p) => ({ hash: hashes.get(p.id)!, markdown: p.markdown }));
    await inChunks(
      documents,
      WRITE_CHUNK,
      (chunk) =>
        sql(
          em,
          `insert into page_document (space_id, hash, markdown)
         select ?, x.hash, x.markdown from jsonb_to_recordset(?::jsonb) as x(hash text, markdown text)
         on conflict do nothing`,
          [input.spaceId, JSON.stringify(chunk)],
        ),
      { of: (d) => d.markdown.length, max: WRITE_CHUNK_CHARS },
    );
    const rows = changed.map((p) => ({
      page_id: p.id,
      parent_id: p.parentId,
      position: p.position,
      meta: metaOf(p),
      document_hash: hashes.get(p.id)!,
    }));
    await inChunks(rows, WRITE_CHUNK, (chunk) =>
      sql(
        em,
        `insert into revision_page (revision_id, page_id, parent_id, position, meta, document_hash)
         select ?, x.page_id, x.parent_id, x.position, x.meta, x.document_hash
           from jsonb_to_recordset(?::jsonb) as x(page_id text, parent_id text, position text, meta jsonb, document_hash text)`,
        [id, JSON.stringify(chunk)],
      ),
    );
  }
  if (input.base) {
    await sql(
      em,
      `insert into revision_file (revision_id, file_id, name, content_type, size, width, height, sha256, created_at)
       select ?, file_id, name, content_type, size, width, height, sha256, created_at from revision_file
        where revision_id = ? and file_id not in (select jsonb_array_elements_text(?::jsonb))`,
      [id, input.base.revisionId, JSON.stringify(input.removedFiles ?? [])],
    );
  }
  if (input.addedFiles && input.addedFiles.length > 0) {
    await sql(
      em,
      `insert into revision_file (revision_id, file_id, name, content_type, size, width, height, sha256)
       select ?, x.id, x.name, x."contentType", x.size, x.width, x.height, x.sha256
         from jsonb_to_recordset(?::jsonb) as x(id text, name text, "contentType" text, size bigint, width int, height int, sha256 text)
       on conflict (revision_id, file_id) do update set name = excluded.name, content_type = excluded.content_type,
         size = excluded.size, width = excluded.width, height = excluded.height, sha256 = excluded.sha256`,
      [id, JSON.stringify(input.addedFiles)],
    );
  }
  return id;
}

/** Copies a revision's pages, documents and files into another space as that space's first revision. */
export async function copyRevisionToSpace(em: Em, fromRevisionId: string, toSpaceId: string, newRevisionId: string): Promise<void> {
  await sql(
    em,
    `insert into page_document (space_id, hash, markdown)
     select ?, d.hash, d.markdown from revision_page rp
       join revision r on r.id = rp.revision_id
       join page_document d on d.space_id = r.space_id and d.hash = rp.document_hash
      where rp.revision_id = ?
     on conflict do nothing`,
    [toSpaceId, fromRevisionId],
  );
  await sql(
    em,
    `insert into revision_page (revision_id, page_id, parent_id, position, meta, document_hash)
     select ?, page_id, parent_id, position, meta, document_hash from revision_page where revision_id = ?`,
    [newRevisionId, fromRevisionId],
  );
  await sql(
    em,
    `insert into revision_file (revision_id, file_id, name, content_type, size, width, height, sha256, created_at)
     select ?, file_id, name, content_type, size, width, height, sha256, created_at from revision_file where revision_id = ?`,
    [newRevisionId, fromRevisionId],
  );
}

/** One page of a revision's files by id: `limit + 1` rows after `after` (an id), and how many there are. */
export async function selectFilesPage(
  em: Em,
  revisionId: string,
  after: string | null,
  limit: number,
): Promise<{ rows: FileRow[]; count: number }> {
  const rows = await sql<FileRow & { total: string }>(
    em,
    `select file_id as id, name, content_type as "contentType", size::int as size, width, height, sha256,
            (select count(*) from revision_file where revision_id = ?) as total
       from revision_file where revision_id = ? and (?::text is null or file_id > ?)
      order by file_id limit ?`,
    [revisionId, revisionId, after, after, limit + 1],
  );
  return { rows: rows.map(({ total: _total, ...file }) => file), count: rows.length ? Number(rows[0].total) : 0 };
}

/** One file of a revision. */
export async function loadFile(em: Em, revisionId: string, fileId: string): Promise<FileRow | undefined> {
  const rows = await sql<FileRow>(
    em,
    `select file_id as id, name, content_type as "contentType", size::int as size, width, height, sha256
       from revision_file where revision_id = ? and file_id = ?`,
    [revisionId, fileId],
  );
  return rows[0];
}

/** The path of one page from its ancestors' slugs (index rows only, no documents); '' when absent. */
export async function loadPagePath(em: Em, revisionId: string, pageId: string): Promise<string> {
  const rows = await sql<{ path: string }>(
    em,
    `with recursive up as (
       select page_id, parent_id, meta->>'slug' as slug, 0 as depth from revision_page where revision_id = ? and page_id = ?
       union all
       select rp.page_id, rp.parent_id, rp.meta->>'slug', up.depth + 1
         from revision_page rp join up on rp.page_id = up.parent_id and rp.revision_id = ? where up.depth < 100
     ) select string_agg(slug, '/' order by depth desc) as path from up`,
    [revisionId, pageId, revisionId],
  );
  return rows[0]?.path ?? '';
}

/** Whether a page exists in a revision. */
export async function pageInRevision(em: Em, revisionId: string, pageId: string): Promise<boolean> {
  const rows = await sql(em, 'select 1 from revision_page where revision_id = ? and page_id = ?', [revisionId, pageId]);
  return rows.length > 0;
}

/** The space a revision belongs to, if the revision exists. */
export async function revisionSpace(em: Em, revisionId: string): Promise<string | undefined> {
  const rows = await sql<{ space_id: string }>(em, 'select space_id from revision where id = ?', [revisionId]);
  return rows[0]?.space_id;
}
