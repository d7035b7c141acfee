import { loadFiles, loadPageMap, loadReusableContents, loadReusableContentTexts } from '../../db/content.ts';
import { markdownToDocument, revisionResolvers, type JsonDocument, type MarkdownToDocumentOptions } from '../../domain/content/document.ts';
import { dereferenceReusableContents, evaluateDocument } from '../../domain/content/document-reads.ts';
import { SizedLru } from '../../domain/lru.ts';
import { allPaths } from '../../domain/content/tree.ts';
import { conditionContext, conditionHolds } from '../../domain/sites/conditions.ts';
import type { Ctx } from '../context.ts';
import { JsonAnswer } from '../json-answer.ts';

/**
 * Documents of a revision's texts (pages and reusable contents) in GitBook's document model, as
 * readers ask for them: references resolved, reusable contents expanded, conditions evaluated for
 * the visitor. Used by revision reads (./service.ts) and by page reads with `format=document`
 * (../content/service.ts).
 */

export type DocumentQuery = { evaluated?: 'true' | 'false' | 'deterministic-only'; dereferenced?: 'true' | 'false' | 'reusable-contents' };

/**
 * How the markdown → document conversion resolves the references of a text of the revision, by
 * where the text sits (`fromPath`: a page's path; `` for a reusable content): `gitbook://`
 * references and relative paths as Git Sync writes them, to pages (by path), files (by name) and
 * reusable contents (by path under `.gitbook/includes/`). The revision is read once for all texts.
 */
async function readingOptions(ctx: Ctx, revisionId: string): Promise<(fromPath: string) => MarkdownToDocumentOptions> {
  const [pages, files, reusableContents] = await Promise.all([
    loadPageMap(ctx.em, revisionId, false),
    loadFiles(ctx.em, revisionId),
    loadReusableContents(ctx.em, revisionId),
  ]);
  const index = {
    pages: new Map([...allPaths(pages)].map(([id, path]) => [path, id])),
    files: new Map(files.map((file) => [file.name, file.id])),
    reusableContents: new Map(reusableContents.flatMap((content) => (content.path ? [[content.path, content.id] as const] : []))),
  };
  return (fromPath) => revisionResolvers({ ...index, fromPath }).read;
}

/** The claims `if` blocks are evaluated against: a site visitor's, or none. */
function visitorContext(ctx: Ctx): object {
  const { unsigned, ...signed } = ctx.caller.visitor?.claims ?? {};
  return conditionContext({ signed, unsigned: isRecord(unsigned) ? unsigned : {} });
}

const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * Documents of a revision's pages and reusable contents as converted, before they are evaluated
 * for a visitor: a revision never changes, so a document is converted once per process and
 * answered from here after that. Bounded by the bytes of the documents' JSON (about twice that in
 * memory); see docs/scaling.md.
 */
export const DOCUMENT_CACHE_BYTES = 32 * 1024 * 1024;
interface CachedDocument {
  document: JsonDocument;
  /** Its serialized form, answered as it is where nothing is evaluated for the visitor. */
  answer: JsonAnswer;
  conditional: boolean;
  bytes: number;
}
const documents = new SizedLru<string, CachedDocument>(DOCUMENT_CACHE_BYTES, (entry) => entry.bytes);

/** A page's text as a document source: cached by page, its references resolved from the page's path. */
export const pageSource = (pageId: string, fromPath: () => Promise<string>) => ({ key: `page:${pageId}`, fromPath });

/**
 * The document of a markdown text of the revision (`source` names it, a page or a reusable
 * content, and where its relative references start), with reusable contents expanded
 * (`dereferenced`) and `if` blocks decided for the caller (`evaluated`). Visitor claims are the
 * only inputs conditions read, and they are fixed by the token, so `deterministic-only` evaluates
 * the same as `true`.
 */
export async function revisionDocument(
  ctx: Ctx,
  revisionId: string,
  source: { key: string; fromPath: () => Promise<string> },
  markdown: string,
  query: DocumentQuery,
): Promise<JsonDocument> {
  const entry = await cachedDocument(ctx, revisionId, source, markdown, query);
  return evaluatedFor(entry, query) ? evaluated(ctx, entry) : entry.document;
}

/** The same document as `revisionDocument`, prepared as an answer when it is the same for every caller. */
export async function revisionDocumentAnswer(
  ctx: Ctx,
  revisionId: string,
  source: { key: string; fromPath: () => Promise<string> },
  markdown: string,
  query: DocumentQuery,
): Promise<JsonDocument | JsonAnswer> {
  const entry = await cachedDocument(ctx, revisionId, source, markdown, query);
  return evaluatedFor(entry, query) ? evaluated(ctx, entry) : entry.answer;
}

/**
 * The document of `sourceKey` when this process has it converted already: a revision never changes,
 * so a cached document stands for its text, which then need not be read.
 */
export function revisionDocumentIfCached(
  ctx: Ctx,
  revisionId: string,
  sourceKey: string,
  query: DocumentQuery,
): JsonDocument | JsonAnswer | undefined {
  const entry = documents.get(documentKey(revisionId, sourceKey, query));
  if (!entry) return undefined;
  return evaluatedFor(entry, query) ? evaluated(ctx, entry) : entry.answer;
}

const documentKey = (revisionId: string, sourceKey: string, query: DocumentQuery) => {
  const dereference = query.dereferenced === 'true' || query.dereferenced === 'reusable-contents';
  return `${revisionId}\n${sourceKey}\n${dereference ? 'dereferenced' : ''}`;
};

async function cachedDocument(
  ctx: Ctx,
  revisionId: string,
  source: { key: string; fromPath: () => Promise<string> },
  markdown: string,
  query: DocumentQuery,
): Promise<CachedDocument> {
  const dereference = query.dereferenced === 'true' || query.dereferenced === 'reusable-contents';
  const key = documentKey(revisionId, source.key, query);
  let entry = documents.get(key);
  if (!entry) {
    const document = await convertDocument(ctx, revisionId, await source.fromPath(), markdown, dereference);
    const json = JSON.stringify(document);
    const answer = new JsonAnswer(json);
    // Only a document with `if` blocks changes when evaluated; the others are answered as cached.
    entry = { document, answer, conditional: json.includes('"type":"if"'), bytes: 2 * json.length + answer.bytes };
    documents.set(key, entry);
  }
  return entry;
}

/** Whether the document answered differs by caller: it has `if` blocks and they are to be evaluated. */
const evaluatedFor = (entry: CachedDocument, query: DocumentQuery) =>
  entry.conditional && (query.evaluated === 'true' || query.evaluated === 'deterministic-only');

function evaluated(ctx: Ctx, entry: CachedDocument): JsonDocument {
  const context = visitorContext(ctx);
  return evaluateDocument(entry.document, (expression) => conditionHolds(expression, context));
}

async function convertDocument(
  ctx: Ctx,
  revisionId: string,
  fromPath: string,
  markdown: string,
  dereference: boolean,
): Promise<JsonDocument> {
  const optionsAt = await readingOptions(ctx, revisionId);
  const document = markdownToDocument(markdown, optionsAt(fromPath));
  if (!dereference) return document;
  const includeOptions = optionsAt('');
  const texts = new Map((await loadReusableContentTexts(ctx.em, revisionId)).map((c) => [c.id, c.markdown]));
  const converted = new Map<string, JsonDocument>();
  return dereferenceReusableContents(document, (id) => {
    const text = texts.get(id);
    if (text === undefined) return undefined;
    let found = converted.get(id);
    // Keys of their own (`i0-…`, `i1-…`) beside the page's (`k…`).
    if (!found) converted.set(id, (found = markdownToDocument(text, { ...includeOptions, keyPrefix: `i${converted.size.toString(36)}-` })));
    return found;
  });
}
