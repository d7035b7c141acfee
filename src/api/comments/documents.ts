import { createHash } from 'node:crypto';
import type { JsonDocument } from '../../domain/content/document.ts';
import { plainTextDocument, type convertText } from '../../domain/content/document-task.ts';
import { SizedLru } from '../../domain/lru.ts';
import { BoundedParseError, boundedTask, runBounded } from '../../lib/bounded-parse.ts';
import type { Ctx } from '../context.ts';
import { unavailable } from '../errors.ts';
import { DOCUMENT_CONVERSION, MAX_DOCUMENT_JSON_BYTES } from '../revisions/documents.ts';

/**
 * Comment and reply bodies as documents (`format=document`): converted in the parsing pool, as
 * every text a user wrote, and kept by the hash of their text so that a list read again converts
 * nothing. A body that cannot be converted within its budget is answered as text.
 */
const CONVERT = boundedTask<typeof convertText>(new URL('../../domain/content/document-task.ts', import.meta.url), 'convertText');

export const BODY_DOCUMENT_CACHE_BYTES = 4 * 1024 * 1024;
const converted = new SizedLru<string, JsonDocument>(BODY_DOCUMENT_CACHE_BYTES, (document) => 2 * JSON.stringify(document).length + 64);

const keyOf = (markdown: string) => createHash('sha256').update(markdown).digest('base64url');

async function convert(ctx: Ctx, markdown: string): Promise<JsonDocument> {
  const key = keyOf(markdown);
  const found = converted.get(key);
  if (found) return found;
  let document: JsonDocument;
  try {
    document = JSON.parse(
      await runBounded(CONVERT, [markdown, MAX_DOCUMENT_JSON_BYTES], { ...DOCUMENT_CONVERSION, lane: 'interactive' }),
    ) as JsonDocument;
  } catch (error) {
    if (!(error instanceof BoundedParseError)) throw error;
    if (error.reason === 'busy') throw unavailable('Documents are being converted for other readers; try again shortly');
    if (error.reason === 'crashed' || error.reason === 'aborted') throw error;
    ctx.log.warn({ reason: error.reason, code: error.code }, 'comment body conversion over its budget: answered as text');
    document = plainTextDocument(markdown);
  }
  converted.set(key, document);
  return document;
}

/** The documents of these bodies, by their text; none when bodies are answered as markdown. */
export async function bodyDocuments(
  ctx: Ctx,
  markdowns: string[],
  format: 'markdown' | 'document' | undefined,
): Promise<Map<string, JsonDocument>> {
  if (format !== 'document') return new Map();
  const texts = [...new Set(markdowns)];
  const documents = await Promise.all(texts.map((markdown) => convert(ctx, markdown)));
  return new Map(texts.map((markdown, i) => [markdown, documents[i]]));
}
