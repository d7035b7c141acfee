import { documentToMarkdown } from '../../domain/content/document.ts';
import { documentLimitProblem, markdownLimitProblem } from '../../domain/content/limits.ts';
import { badRequest } from '../errors.ts';
import { MAX_BODY_LENGTH } from './schemas.ts';

/** The body of a comment or reply as it is sent: markdown, or a GitBook document turned into markdown. */

/**
 * The markdown of a body as sent: its markdown, or its document written as markdown (a document
 * nested past MAX_DOCUMENT_DEPTH is refused before it is read); 400 naming `field` and the limit
 * when that markdown is past the limits every page has (./domain/content/limits.ts).
 */
function sentMarkdown(body: { markdown?: string; document?: unknown }, field: string): string {
  if (body.markdown === undefined && body.document !== undefined) {
    const problem = documentLimitProblem(body.document);
    if (problem) throw badRequest(`${field}.document: ${problem.message}`);
  }
  const markdown = body.markdown ?? (body.document !== undefined ? documentToMarkdown(body.document) : '');
  const problem = markdownLimitProblem(markdown);
  if (problem) throw badRequest(`${field}: ${problem.message}`);
  return markdown;
}

/** The markdown of a body as sent (`{markdown}` or a GitBook `{document}`); 400 naming `field` when it is empty. */
export function bodyMarkdown(body: { markdown?: string; document?: unknown }, field: string): string {
  const markdown = sentMarkdown(body, field);
  if (markdown.trim() === '') throw badRequest(`${field} must have some content: send {"markdown": "..."} or a non-empty {"document"}`);
  return markdown;
}

/**
 * The markdown of an optional body (a review's comment): undefined when absent or empty (GitBook's
 * empty Document, `{}`); 400 naming `field` when it is longer than a comment may be.
 */
export function optionalBodyMarkdown(body: { markdown?: string; document?: unknown } | undefined, field: string): string | undefined {
  if (body === undefined) return undefined;
  const markdown = sentMarkdown(body, field);
  if (markdown.trim() === '') return undefined;
  if (markdown.length > MAX_BODY_LENGTH) {
    throw badRequest(`${field} is too long: at most ${MAX_BODY_LENGTH} characters once written as markdown (got ${markdown.length})`);
  }
  return markdown;
}
