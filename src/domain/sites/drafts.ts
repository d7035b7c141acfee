/**
 * Draft mode of a site's structure (GitBook's `draft` on site-spaces, sections and section
 * groups). Members list and edit drafts, and a preview asking for drafts shows them; everyone else
 * reads the live structure: no draft section group, section or site-space, and nothing inside a
 * draft group or section. Pure.
 */

export interface DraftSection {
  id: string;
  draft: boolean;
  /** The group it is in, when the structure has groups to check. */
  group_id?: string | null;
}

export interface DraftSiteSpace {
  section_id: string | null;
  draft: boolean;
}

export interface DraftGroup {
  id: string;
  draft: boolean;
}

/** The live part of a structure: what readers of the published site see. */
export function liveStructure<S extends DraftSection, P extends DraftSiteSpace, G extends DraftGroup>(structure: {
  sections: S[];
  siteSpaces: P[];
  groups: G[];
}): { sections: S[]; siteSpaces: P[]; groups: G[] } {
  const groups = structure.groups.filter((g) => !g.draft);
  const liveGroups = new Set(groups.map((g) => g.id));
  const sections = structure.sections.filter((s) => !s.draft && (s.group_id == null || liveGroups.has(s.group_id)));
  const liveSections = new Set(sections.map((s) => s.id));
  const siteSpaces = structure.siteSpaces.filter((p) => !p.draft && (p.section_id === null || liveSections.has(p.section_id)));
  return { sections, siteSpaces, groups };
}
