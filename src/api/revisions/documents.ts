import { loadFiles, loadPageMap, loadReusableContents, loadReusableContentTexts } from '../../db/content.ts';
import { codeblockIntegrationsOnSpace } from '../../db/integration-events.ts';
import type { JsonDocument } from '../../domain/content/document.ts';
import { evaluateDocument } from '../../domain/content/document-reads.ts';
import {
  mayInclude,
  plainTextDocument,
  type ConvertedText,
  type convertRevisionText,
  type DocumentIndex,
} from '../../domain/content/document-task.ts';
import { declarationsKey, withIntegrationBlocks, type CodeblockIntegration } from '../../domain/content/integration-codeblocks.ts';
import { SizedLru } from '../../domain/lru.ts';
import { allPaths } from '../../domain/content/tree.ts';
import { conditionContext, conditionHolds } from '../../domain/sites/conditions.ts';
import { BoundedParseError, boundedTask, runBounded } from '../../lib/bounded-parse.ts';
import type { Ctx } from '../context.ts';
import { unavailable } from '../errors.ts';
import { JsonAnswer } from '../json-answer.ts';

/**
 * Documents of a revision's texts (pages and reusable contents) in GitBook's document model, as
 * readers ask for them: references resolved, reusable contents expanded, conditions evaluated for
 * the visitor. Used by revision reads (./service.ts) and by page reads with `format=document`
 * (../content/service.ts).
 */

export type DocumentQuery = { evaluated?: 'true' | 'false' | 'deterministic-only'; dereferenced?: 'true' | 'false' | 'reusable-contents' };

/**
 * How the markdown → document conversion resolves the references of a text of the revision:
 * `gitbook://` references and relative paths as Git Sync writes them, to pages (by path), files
 * (by name) and reusable contents (by path under `.gitbook/includes/`).
 */
async function revisionIndex(ctx: Ctx, revisionId: string): Promise<DocumentIndex> {
  const [pages, files, reusableContents] = await Promise.all([
    loadPageMap(ctx.em, revisionId, false),
    loadFiles(ctx.em, revisionId),
    loadReusableContents(ctx.em, revisionId),
  ]);
  return {
    pages: new Map([...allPaths(pages)].map(([id, path]) => [path, id])),
    files: new Map(files.map((file) => [file.name, file.id])),
    reusableContents: new Map(reusableContents.flatMap((content) => (content.path ? [[content.path, content.id] as const] : []))),
  };
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
  /** Its key in `documents`. */
  key: string;
  /** The document as JSON text, parsed into `parsed` the first time a caller needs the object. */
  json: string;
  parsed?: JsonDocument;
  /** Its serialized form, answered as it is where nothing is evaluated for the visitor. */
  answer: JsonAnswer;
  conditional: boolean;
  /** The syntaxes of its code blocks: those an integration installed on the space claims are its blocks. */
  codeSyntaxes: string[];
  bytes: number;
}
const documents = new SizedLru<string, CachedDocument>(DOCUMENT_CACHE_BYTES, (entry) => entry.bytes);
/** Conversions under way, so that readers of one page at once share one conversion. */
const converting = new Map<string, Promise<CachedDocument>>();

const documentOf = (entry: CachedDocument): JsonDocument => (entry.parsed ??= JSON.parse(entry.json) as JsonDocument);

/**
 * The budget of one conversion in the parsing pool (src/lib/bounded-parse.ts). Real pages convert
 * in milliseconds (GitBook's block documentation: 6.7 ms at the median here, inline); a text that
 * needs more than this is shown as text (below) rather than hold a thread.
 */
export const DOCUMENT_CONVERSION = { timeoutMs: 5_000, maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };
/**
 * The longest document answered, in bytes of JSON. A document is read back and written out on the
 * event loop (JSON.parse and serialization: about 30 ms per MiB each here), so this bounds what one
 * read costs it. Real pages expand about 4–6 times into JSON: GitBook's largest real page (188 KB of
 * markdown) makes about 1.1 MB.
 */
export const MAX_DOCUMENT_JSON_BYTES = 2 * 1024 * 1024;

const CONVERT = boundedTask<typeof convertRevisionText>(
  new URL('../../domain/content/document-task.ts', import.meta.url),
  'convertRevisionText',
);

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
  spaceId: string,
  revisionId: string,
  source: { key: string; fromPath: () => Promise<string> },
  markdown: string,
  query: DocumentQuery,
): Promise<JsonDocument> {
  const entry = await withCodeblockIntegrations(ctx, spaceId, await cachedDocument(ctx, revisionId, source, markdown, query));
  return evaluatedFor(entry, query) ? evaluated(ctx, entry) : documentOf(entry);
}

/** The same document as `revisionDocument`, prepared as an answer when it is the same for every caller. */
export async function revisionDocumentAnswer(
  ctx: Ctx,
  spaceId: string,
  revisionId: string,
  source: { key: string; fromPath: () => Promise<string> },
  markdown: string,
  query: DocumentQuery,
): Promise<JsonDocument | JsonAnswer> {
  const entry = await withCodeblockIntegrations(ctx, spaceId, await cachedDocument(ctx, revisionId, source, markdown, query));
  return evaluatedFor(entry, query) ? evaluated(ctx, entry) : entry.answer;
}

/**
 * The document of `sourceKey` when this process has it converted already: a revision never changes,
 * so a cached document stands for its text, which then need not be read.
 */
export async function revisionDocumentIfCached(
  ctx: Ctx,
  spaceId: string,
  revisionId: string,
  sourceKey: string,
  query: DocumentQuery,
): Promise<JsonDocument | JsonAnswer | undefined> {
  const cached = documents.get(documentKey(revisionId, sourceKey, query));
  if (!cached) return undefined;
  const entry = await withCodeblockIntegrations(ctx, spaceId, cached);
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
  const found = documents.get(key);
  if (found) return found;
  let pending = converting.get(key);
  if (!pending) {
    pending = (async () => {
      const { json, codeSyntaxes } = await convertDocument(ctx, revisionId, await source.fromPath(), markdown, dereference);
      const entry = documentEntry(key, json, codeSyntaxes);
      documents.set(key, entry);
      return entry;
    })().finally(() => converting.delete(key));
    converting.set(key, pending);
  }
  return pending;
}

function documentEntry(key: string, json: string, codeSyntaxes: string[]): CachedDocument {
  const answer = new JsonAnswer(json);
  // Only a document with `if` blocks changes when evaluated; the others are answered as cached.
  const conditional = json.includes('"type":"if"');
  return { key, json, answer, conditional, codeSyntaxes, bytes: 2 * json.length + answer.bytes };
}

/**
 * The document as the space's readers get it: its code blocks of a syntax an integration installed
 * on the space declares (`blocks[].markdown.codeblock`, Mermaid's `mermaid`) are that integration's
 * blocks, which GitBook's renderer has the integration render. Kept beside the document converted,
 * once per set of integrations that claim its code blocks.
 */
async function withCodeblockIntegrations(ctx: Ctx, spaceId: string, entry: CachedDocument): Promise<CachedDocument> {
  if (entry.codeSyntaxes.length === 0) return entry;
  const claimed = (await spaceCodeblocks(ctx, spaceId)).filter((d) => entry.codeSyntaxes.includes(d.syntax));
  if (claimed.length === 0) return entry;
  const key = `${entry.key}\n${declarationsKey(claimed)}`;
  const found = documents.get(key);
  if (found) return found;
  const variant = documentEntry(key, JSON.stringify(withIntegrationBlocks(documentOf(entry), claimed)), entry.codeSyntaxes);
  documents.set(key, variant);
  return variant;
}

/** The code blocks integrations installed on the space claim, kept between writes (AppDeps.spaceCodeblocks). */
async function spaceCodeblocks(ctx: Ctx, spaceId: string): Promise<CodeblockIntegration[]> {
  const kept = ctx.deps.spaceCodeblocks;
  const found = await kept.current(spaceId, ctx.caughtUp);
  if (found) return found;
  const ticket = kept.ticket();
  const read = await codeblockIntegrationsOnSpace(ctx.em, spaceId);
  kept.set(spaceId, ticket, read);
  return read;
}

/** Whether the document answered differs by caller: it has `if` blocks and they are to be evaluated. */
const evaluatedFor = (entry: CachedDocument, query: DocumentQuery) =>
  entry.conditional && (query.evaluated === 'true' || query.evaluated === 'deterministic-only');

function evaluated(ctx: Ctx, entry: CachedDocument): JsonDocument {
  const context = visitorContext(ctx);
  return evaluateDocument(documentOf(entry), (expression) => conditionHolds(expression, context));
}

/**
 * The document's JSON, converted in the parsing pool. A text whose conversion outgrows its budget
 * (time, memory, or the size of its answer), or that the converter refuses, is answered as text:
 * readers see it, and the conversion is not tried again while the answer stays cached. A pool too
 * busy to take it is a 503, tried again later.
 */
async function convertDocument(
  ctx: Ctx,
  revisionId: string,
  fromPath: string,
  markdown: string,
  dereference: boolean,
): Promise<ConvertedText> {
  const index = await revisionIndex(ctx, revisionId);
  const includes =
    dereference && mayInclude(markdown)
      ? new Map((await loadReusableContentTexts(ctx.em, revisionId)).map((c) => [c.id, c.markdown]))
      : null;
  try {
    return await runBounded(CONVERT, [{ markdown, fromPath, index, includes, maxJsonBytes: MAX_DOCUMENT_JSON_BYTES }], {
      ...DOCUMENT_CONVERSION,
      lane: 'interactive',
    });
  } catch (error) {
    if (!(error instanceof BoundedParseError)) throw error;
    if (error.reason === 'busy') throw unavailable('Documents are being converted for other readers; try again shortly');
    if (error.reason === 'crashed' || error.reason === 'aborted') throw error;
    ctx.log.warn({ revisionId, fromPath, reason: error.reason, code: error.code }, 'document conversion over its budget: answered as text');
    return { json: JSON.stringify(plainTextDocument(markdown)), codeSyntaxes: [] };
  }
}
