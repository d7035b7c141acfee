import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { PageMeta } from './content-entities.ts';
import { db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import { inChunks } from '../domain/chunks.ts';
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

/**
 * `value` for a jsonb column, typed as the column: node-pg would send a JS array as a PostgreSQL
 * array, so the JSON text goes over with an explicit cast (Kysely has no jsonb value of its own).
 */
export function jsonb<T>(value: T): RawBuilder<T> {
  return sql<T>`${JSON.stringify(value)}::jsonb`;
}

/**
 * A list bound as one text[] parameter (`= any(…)`), for lists that may hold thousands of ids
 * where `in (…)` would take a parameter per item. Kysely has no array cast of its own.
 */
function textList(values: string[]): RawBuilder<string[]> {
  return sql<string[]>`${values}::text[]`;
}

export interface FileRow {
  id: string;
  name: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  sha256: string;
}

/** A revision's reusable content without its text. */
export interface ReusableContentRow {
  id: string;
  title: string;
  /** Where it lives in a synced repository, from the project root (`.gitbook/includes/intro.md`). */
  path: string | null;
  documentHash: string;
}

/** A reusable content with its markdown, as revision writes take it and exports read it. */
export interface ReusableContent {
  id: string;
  title: string;
  path: string | null;
  markdown: string;
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
  meta: PageMeta;
  document_hash: string;
}

function toNode(row: PageRow, markdown: string): PageNode {
  return { ...row.meta, id: row.page_id, parentId: row.parent_id, position: row.position, markdown };
}

function metaOf(node: PageNode): PageMeta {
  const { id: _id, parentId: _p, position: _pos, markdown: _m, ...meta } = node;
  return meta;
}

export async function loadRevision(em: Em, revisionId: string): Promise<RevisionRow | undefined> {
  return db(em)
    .selectFrom('revision')
    .selectAll()
    .where('id', '=', revisionId)
    .$narrowType<{ git: RevisionRow['git'] }>()
    .executeTakeFirst();
}

/** The index rows of a revision's pages with their documents' text (null for a document that is missing). */
function pagesWithText(em: Em, revisionId: string) {
  return db(em)
    .selectFrom('revision_page as rp')
    .innerJoin('revision as r', 'r.id', 'rp.revision_id')
    .leftJoin('page_document as d', (join) => join.onRef('d.space_id', '=', 'r.space_id').onRef('d.hash', '=', 'rp.document_hash'))
    .select(['rp.page_id', 'rp.parent_id', 'rp.position', 'rp.meta', 'rp.document_hash', 'd.markdown'])
    .where('rp.revision_id', '=', revisionId);
}

/** Every page of a revision; documents as text (`withText`) or as tokens. */
export async function loadPageMap(em: Em, revisionId: string, withText: boolean): Promise<PageMap> {
  const map: PageMap = {};
  if (withText) {
    for (const row of await pagesWithText(em, revisionId).execute()) map[row.page_id] = toNode(row, row.markdown ?? '');
  } else {
    const rows = await db(em)
      .selectFrom('revision_page')
      .select(['page_id', 'parent_id', 'position', 'meta', 'document_hash'])
      .where('revision_id', '=', revisionId)
      .execute();
    for (const row of rows) map[row.page_id] = toNode(row, documentToken(row.document_hash));
  }
  return map;
}

/** One page with its document, without loading the rest of the tree. */
export async function loadPage(em: Em, revisionId: string, pageId: string): Promise<PageNode | undefined> {
  const row = await pagesWithText(em, revisionId).where('rp.page_id', '=', pageId).executeTakeFirst();
  return row ? toNode(row, row.markdown ?? '') : undefined;
}

/** Replaces document tokens of the given pages by their text. */
export async function loadDocuments(em: Em, spaceId: string, hashes: string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await db(em)
    .selectFrom('page_document')
    .select(['hash', 'markdown'])
    .where('space_id', '=', spaceId)
    .where('hash', '=', (eb) => eb.fn.any(textList([...new Set(hashes)])))
    .execute();
  return new Map(rows.map((r) => [r.hash, r.markdown]));
}

/** Reads a revision's files as FileRows: the bigint size as an int, as the API shows it. */
function files(em: Em, revisionId: string) {
  return db(em)
    .selectFrom('revision_file')
    .select((eb) => [
      'file_id as id',
      'name',
      'content_type as contentType',
      eb.cast<number>('size', 'integer').as('size'),
      'width',
      'height',
      'sha256',
    ])
    .where('revision_id', '=', revisionId);
}

export async function loadFiles(em: Em, revisionId: string): Promise<FileRow[]> {
  return files(em, revisionId).orderBy('name').orderBy('file_id').execute();
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
  /** The revision's reusable contents, all of them; absent: those of `reusableContentsFrom`, else of the base. */
  reusableContents?: ReusableContent[];
  /** The revision whose reusable contents the new one lists, when not the base's. */
  reusableContentsFrom?: string;
  id?: string;
}

/** Writes a new immutable revision and returns its id. Call inside a transaction. */
export async function writeRevision(em: Em, input: WriteRevisionInput): Promise<string> {
  const id = input.id ?? newId();
  const q = db(em);
  await q
    .insertInto('revision')
    .values({
      id,
      space_id: input.spaceId,
      parents: input.parents,
      type: input.type,
      created_at: new Date(),
      change_request_id: input.changeRequestId ?? null,
    })
    .execute();
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
    await q
      .insertInto('revision_page')
      .columns(['revision_id', 'page_id', 'parent_id', 'position', 'meta', 'document_hash'])
      .expression(
        q
          .selectFrom('revision_page')
          .select((eb) => [
            eb.cast<string>(eb.val(id), 'text').as('revision_id'),
            'page_id',
            'parent_id',
            'position',
            'meta',
            'document_hash',
          ])
          .where('revision_id', '=', input.base.revisionId)
          .where((eb) => eb.not(eb('page_id', '=', eb.fn.any(textList(excluded))))),
      )
      .execute();
  }
  if (changed.length > 0) {
    const hashes = new Map(changed.map((p) => [p.id, documentHash(p.markdown)]));
    const documents = changed.filter((p) => tokenHash(p.markdown) === null).map((p) => ({ hash: hashes.get(p.id)!, markdown: p.markdown }));
    await inChunks(
      documents,
      WRITE_CHUNK,
      (chunk) =>
        q
          .insertInto('page_document')
          .values(chunk.map((d) => ({ space_id: input.spaceId, hash: d.hash, markdown: d.markdown })))
          .onConflict((oc) => oc.doNothing())
          .execute(),
      { of: (d) => d.markdown.length, max: WRITE_CHUNK_CHARS },
    );
    const rows = changed.map((p) => ({
      revision_id: id,
      page_id: p.id,
      parent_id: p.parentId,
      position: p.position,
      meta: jsonb(metaOf(p)),
      document_hash: hashes.get(p.id)!,
    }));
    await inChunks(rows, WRITE_CHUNK, (chunk) => q.insertInto('revision_page').values(chunk).execute());
  }
  if (input.base) {
    await copyFileRows(em, input.base.revisionId, id, input.removedFiles ?? []);
  }
  const includesFrom = input.reusableContentsFrom ?? input.base?.revisionId;
  if (input.reusableContents !== undefined) await insertReusableContents(em, input.spaceId, id, input.reusableContents);
  else if (includesFrom !== undefined) await copyReusableContentRows(em, includesFrom, id);
  if (input.addedFiles && input.addedFiles.length > 0) {
    await inChunks(input.addedFiles, WRITE_CHUNK, (chunk) =>
      q
        .insertInto('revision_file')
        .values(
          chunk.map((f) => ({
            revision_id: id,
            file_id: f.id,
            name: f.name,
            content_type: f.contentType,
            size: String(f.size),
            width: f.width,
            height: f.height,
            sha256: f.sha256,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['revision_id', 'file_id']).doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            content_type: eb.ref('excluded.content_type'),
            size: eb.ref('excluded.size'),
            width: eb.ref('excluded.width'),
            height: eb.ref('excluded.height'),
            sha256: eb.ref('excluded.sha256'),
          })),
        )
        .execute(),
    );
  }
  return id;
}

/** Copies a revision's pages, documents and files into another space as that space's first revision. */
export async function copyRevisionToSpace(em: Em, fromRevisionId: string, toSpaceId: string, newRevisionId: string): Promise<void> {
  const q = db(em);
  await q
    .insertInto('page_document')
    .columns(['space_id', 'hash', 'markdown'])
    .expression(
      q
        .selectFrom('revision_page as rp')
        .innerJoin('revision as r', 'r.id', 'rp.revision_id')
        .innerJoin('page_document as d', (join) => join.onRef('d.space_id', '=', 'r.space_id').onRef('d.hash', '=', 'rp.document_hash'))
        .select((eb) => [eb.cast<string>(eb.val(toSpaceId), 'text').as('space_id'), 'd.hash', 'd.markdown'])
        .where('rp.revision_id', '=', fromRevisionId),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await q
    .insertInto('revision_page')
    .columns(['revision_id', 'page_id', 'parent_id', 'position', 'meta', 'document_hash'])
    .expression(
      q
        .selectFrom('revision_page')
        .select((eb) => [
          eb.cast<string>(eb.val(newRevisionId), 'text').as('revision_id'),
          'page_id',
          'parent_id',
          'position',
          'meta',
          'document_hash',
        ])
        .where('revision_id', '=', fromRevisionId),
    )
    .execute();
  await copyFileRows(em, fromRevisionId, newRevisionId);
  await q
    .insertInto('page_document')
    .columns(['space_id', 'hash', 'markdown'])
    .expression(
      q
        .selectFrom('revision_reusable_content as rc')
        .innerJoin('revision as r', 'r.id', 'rc.revision_id')
        .innerJoin('page_document as d', (join) => join.onRef('d.space_id', '=', 'r.space_id').onRef('d.hash', '=', 'rc.document_hash'))
        .select((eb) => [eb.cast<string>(eb.val(toSpaceId), 'text').as('space_id'), 'd.hash', 'd.markdown'])
        .where('rc.revision_id', '=', fromRevisionId),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await copyReusableContentRows(em, fromRevisionId, newRevisionId);
}

/** Stores the documents of reusable contents and lists them as the revision's. */
async function insertReusableContents(em: Em, spaceId: string, revisionId: string, contents: ReusableContent[]): Promise<void> {
  if (contents.length === 0) return;
  const q = db(em);
  const rows = contents.map((c) => ({ ...c, hash: documentHash(c.markdown) }));
  const documents = rows.filter((r) => tokenHash(r.markdown) === null);
  await inChunks(
    documents,
    WRITE_CHUNK,
    (chunk) =>
      q
        .insertInto('page_document')
        .values(chunk.map((d) => ({ space_id: spaceId, hash: d.hash, markdown: d.markdown })))
        .onConflict((oc) => oc.doNothing())
        .execute(),
    { of: (d) => d.markdown.length, max: WRITE_CHUNK_CHARS },
  );
  await inChunks(rows, WRITE_CHUNK, (chunk) =>
    q
      .insertInto('revision_reusable_content')
      .values(
        chunk.map((r) => ({ revision_id: revisionId, reusable_content_id: r.id, title: r.title, path: r.path, document_hash: r.hash })),
      )
      .execute(),
  );
}

/** Copies the reusable-content rows of revision `from` into revision `to` (their documents are the space's already). */
async function copyReusableContentRows(em: Em, from: string, to: string): Promise<void> {
  const q = db(em);
  await q
    .insertInto('revision_reusable_content')
    .columns(['revision_id', 'reusable_content_id', 'title', 'path', 'document_hash'])
    .expression(
      q
        .selectFrom('revision_reusable_content')
        .select((eb) => [eb.cast<string>(eb.val(to), 'text').as('revision_id'), 'reusable_content_id', 'title', 'path', 'document_hash'])
        .where('revision_id', '=', from),
    )
    .execute();
}

/** A revision's reusable contents (without their text), by title. */
export async function loadReusableContents(em: Em, revisionId: string): Promise<ReusableContentRow[]> {
  return db(em)
    .selectFrom('revision_reusable_content')
    .select(['reusable_content_id as id', 'title', 'path', 'document_hash as documentHash'])
    .where('revision_id', '=', revisionId)
    .orderBy('title')
    .orderBy('reusable_content_id')
    .execute();
}

function reusableContentsWithText(em: Em, revisionId: string) {
  return db(em)
    .selectFrom('revision_reusable_content as rc')
    .innerJoin('revision as r', 'r.id', 'rc.revision_id')
    .leftJoin('page_document as d', (join) => join.onRef('d.space_id', '=', 'r.space_id').onRef('d.hash', '=', 'rc.document_hash'))
    .select(['rc.reusable_content_id as id', 'rc.title', 'rc.path', 'd.markdown'])
    .where('rc.revision_id', '=', revisionId);
}

const withText = (row: { id: string; title: string; path: string | null; markdown: string | null }): ReusableContent => ({
  ...row,
  markdown: row.markdown ?? '',
});

/** Every reusable content of a revision with its markdown. */
export async function loadReusableContentTexts(em: Em, revisionId: string): Promise<ReusableContent[]> {
  const rows = await reusableContentsWithText(em, revisionId).orderBy('rc.title').orderBy('rc.reusable_content_id').execute();
  return rows.map(withText);
}

/** One reusable content of a revision with its markdown. */
export async function loadReusableContent(em: Em, revisionId: string, id: string): Promise<ReusableContent | undefined> {
  const row = await reusableContentsWithText(em, revisionId).where('rc.reusable_content_id', '=', id).executeTakeFirst();
  return row && withText(row);
}

/** A document of a space by id (its content hash), or undefined. */
export async function loadSpaceDocument(em: Em, spaceId: string, hash: string): Promise<string | undefined> {
  const row = await db(em)
    .selectFrom('page_document')
    .select('markdown')
    .where('space_id', '=', spaceId)
    .where('hash', '=', hash)
    .executeTakeFirst();
  return row?.markdown;
}

/** Copies the file rows of revision `from` into revision `to`, leaving out the files in `except`. */
async function copyFileRows(em: Em, from: string, to: string, except: string[] = []): Promise<void> {
  const q = db(em);
  await q
    .insertInto('revision_file')
    .columns(['revision_id', 'file_id', 'name', 'content_type', 'size', 'width', 'height', 'sha256', 'created_at'])
    .expression(
      q
        .selectFrom('revision_file')
        .select((eb) => [
          eb.cast<string>(eb.val(to), 'text').as('revision_id'),
          'file_id',
          'name',
          'content_type',
          'size',
          'width',
          'height',
          'sha256',
          'created_at',
        ])
        .where('revision_id', '=', from)
        .$if(except.length > 0, (qb) => qb.where((eb) => eb.not(eb('file_id', '=', eb.fn.any(textList(except)))))),
    )
    .execute();
}

/** A revision's files by id, as a listing for the API's paginator. */
export function fileListing(em: Em, revisionId: string): Listing<FileRow> {
  return {
    query: files(em, revisionId),
    keys: [{ field: 'id', kind: 'string' }],
  };
}

/** One file of a revision. */
export async function loadFile(em: Em, revisionId: string, fileId: string): Promise<FileRow | undefined> {
  return files(em, revisionId).where('file_id', '=', fileId).executeTakeFirst();
}

/** The path of one page from its ancestors' slugs (index rows only, no documents); '' when absent. */
export async function loadPagePath(em: Em, revisionId: string, pageId: string): Promise<string> {
  const row = await db(em)
    .withRecursive('up(page_id, parent_id, slug, depth)', (q) =>
      q
        .selectFrom('revision_page')
        .select((eb) => ['page_id', 'parent_id', eb.ref('meta', '->>').key('slug').as('slug'), eb.lit(0).as('depth')])
        .where('revision_id', '=', revisionId)
        .where('page_id', '=', pageId)
        .unionAll((r) =>
          r
            .selectFrom('revision_page as rp')
            .innerJoin('up', (join) => join.onRef('rp.page_id', '=', 'up.parent_id').on('rp.revision_id', '=', revisionId))
            .select((eb) => [
              'rp.page_id',
              'rp.parent_id',
              eb.ref('rp.meta', '->>').key('slug').as('slug'),
              eb('up.depth', '+', 1).as('depth'),
            ])
            .where('up.depth', '<', 100),
        ),
    )
    .selectFrom('up')
    .select((eb) =>
      eb.fn
        .agg<string | null>('string_agg', ['slug', sql.lit('/')])
        .orderBy('depth', 'desc')
        .as('path'),
    )
    .executeTakeFirst();
  return row?.path ?? '';
}

/** Whether a page exists in a revision. */
export async function pageInRevision(em: Em, revisionId: string, pageId: string): Promise<boolean> {
  const row = await db(em)
    .selectFrom('revision_page')
    .select('page_id')
    .where('revision_id', '=', revisionId)
    .where('page_id', '=', pageId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The space a revision belongs to, if the revision exists. */
export async function revisionSpace(em: Em, revisionId: string): Promise<string | undefined> {
  const row = await db(em).selectFrom('revision').select('space_id').where('id', '=', revisionId).executeTakeFirst();
  return row?.space_id;
}
