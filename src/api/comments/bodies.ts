import { documentToMarkdown } from '../../domain/content/document.ts';
import { badRequest } from '../errors.ts';

/** The body of a comment or reply as it is sent: markdown, or a GitBook document turned into markdown. */

/** The markdown of a body as sent (`{markdown}` or a GitBook `{document}`); 400 naming `field` when it is empty. */
export function bodyMarkdown(body: { markdown?: string; document?: unknown }, field: string): string {
  const markdown = body.markdown ?? (body.document !== undefined ? documentToMarkdown(body.document) : '');
  if (markdown.trim() === '') throw badRequest(`${field} must have some content: send {"markdown": "..."} or a non-empty {"document"}`);
  return markdown;
}
