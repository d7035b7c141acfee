import type { SearchHit } from '../../db/search.ts';
import { snippet } from '../../domain/content/markdown.ts';

/** Length of the extract of a section shown in a result. */
const SNIPPET_LENGTH = 200;

/** What is shown with a page of hits, loaded by the service. */
export interface HitFacts {
  /** The page's own description, by page id. */
  descriptions: Map<string, string>;
  /** Ancestors of each page with their depth (1 is the parent), by page id. */
  ancestors: Map<string, { depth: number; title: string }[]>;
  /** `pageId\0sectionId` of the sections whose own heading or text match. */
  matched: Set<string>;
  /** The words searched for, to centre extracts on. */
  terms: string[];
}

export const sectionKey = (pageId: string, sectionId: string) => `${pageId}\u0000${sectionId}`;

/**
 * A page found by the search, with its matching sections (or, found by its title alone, its best
 * section). `rank` is the one-based position in the whole ranked result set.
 */
export function presentSearchHit(hit: SearchHit, rank: number, facts: HitFacts, publicUrl: string, spaceId: string) {
  const app = `${publicUrl}/app/spaces/${spaceId}/pages/${hit.page_id}`;
  const ownSections = hit.sections.filter((s) => facts.matched.has(sectionKey(hit.page_id, s.id)));
  const resultType = ownSections.length > 0 ? ('section' as const) : ('page' as const);
  const sections = resultType === 'section' ? ownSections : hit.sections.slice(0, 1);
  return {
    id: hit.page_id,
    title: hit.page_title,
    description: facts.descriptions.get(hit.page_id) ?? '',
    path: hit.page_path,
    score: Number(hit.rank),
    rank,
    resultType,
    sections: sections.map((s) => ({
      id: s.id,
      title: s.title || hit.page_title,
      path: s.id ? `${hit.page_path}#${s.id}` : hit.page_path,
      score: Number(s.rank),
      resultType,
      body: snippet(s.body, facts.terms, SNIPPET_LENGTH),
      urls: { app: s.id ? `${app}#${encodeURIComponent(s.id)}` : app },
    })),
    ancestors: [...(facts.ancestors.get(hit.page_id) ?? [])].sort((a, b) => b.depth - a.depth).map((a) => ({ title: a.title })),
    urls: { app },
  };
}
