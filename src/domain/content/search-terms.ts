/**
 * The words of a search query written in PostgreSQL's web-search syntax (`websearch_to_tsquery`):
 * what snippets highlight. Quoted phrases count as a phrase and as their words; excluded words
 * (`-word`) and the `or` operator are not terms.
 */
export function searchTerms(query: string): string[] {
  const terms: string[] = [];
  for (const token of query.match(/-?"[^"]*"?|\S+/g) ?? []) {
    if (token.startsWith('-')) continue;
    const quoted = token.startsWith('"');
    const text = quoted ? token.replace(/^"|"$/g, '') : token;
    if (!quoted && text.toLowerCase() === 'or') continue;
    const words = text.split(/[^\p{L}\p{N}_]+/u).filter((w) => w !== '');
    if (quoted && words.length > 1) terms.push(text.trim());
    terms.push(...words);
  }
  return [...new Set(terms)];
}
