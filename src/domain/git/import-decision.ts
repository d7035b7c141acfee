/**
 * What a Git Sync import does with the commit it fetched, decided without I/O: skip it (older than
 * the sync last applied), leave the space as it is (the commit last synced, or content equal to the
 * space's), write it beside the space (standalone), make it the space's content (the space has not
 * changed since the last sync), or merge it three ways with the space's own edits since then, a
 * conflict going to a change request instead.
 *
 * It is decided in two steps, because the second needs content the first says whether to load:
 * `importRoute` from the sync state alone, then `decideImport` from the pages and files of both
 * sides (and, for a three-way merge, of the revision last synced).
 */
import { mergePageMaps, type MergeConflict } from '../content/merge.ts';
import { deepEqual, type PageMap } from '../content/tree.ts';

/** What is known of the request and of the space's sync state before any content is read. */
export interface ImportFacts {
  /** The request's timestamp: requests apply in that order. */
  requestedAt: Date;
  /** Applied even when older than the last sync, and read again even when its commit was synced last. */
  force: boolean;
  /** Written as a revision beside the space's content, which stays as it is. */
  standalone: boolean;
  /** The commit fetched for the request. */
  commit: string;
  /** The space's sync state: when a sync last applied, and the commit and revision it last synced. */
  lastAppliedAt: Date | null;
  lastCommit: string | null;
  lastRevision: string | null;
  /** The space's current revision. */
  spaceRevision: string;
}

export type ImportRoute =
  /** Older than the sync last applied, and not forced: skipped. */
  | { kind: 'out-of-order' }
  /** The commit last synced (the same push again, or the commit an export made): nothing to read or change. */
  | { kind: 'same-commit' }
  /** A revision beside the space: the commit's content as it is, the space untouched. */
  | { kind: 'standalone' }
  /** The space has not changed since the last sync (or never synced): the commit's content becomes the space's. */
  | { kind: 'fast-forward' }
  /** Both sides may have changed since `base`, the revision of the commit last synced: a three-way merge. */
  | { kind: 'three-way'; base: string };

/** The routes that need the commit's content (and the space's) to go on. */
export type ContentRoute = Extract<ImportRoute, { kind: 'standalone' | 'fast-forward' | 'three-way' }>;

/** Whether a request older than the sync last applied is to be skipped (not when forced). */
export function outOfOrder(facts: Pick<ImportFacts, 'requestedAt' | 'force' | 'lastAppliedAt'>): boolean {
  return !facts.force && facts.lastAppliedAt !== null && facts.requestedAt < facts.lastAppliedAt;
}

/** The route of an import, from the sync state alone. */
export function importRoute(facts: ImportFacts): ImportRoute {
  if (outOfOrder(facts)) return { kind: 'out-of-order' };
  if (!facts.force && facts.lastRevision !== null && facts.lastCommit === facts.commit) return { kind: 'same-commit' };
  if (facts.standalone) return { kind: 'standalone' };
  if (facts.lastRevision !== null && facts.lastRevision !== facts.spaceRevision) return { kind: 'three-way', base: facts.lastRevision };
  return { kind: 'fast-forward' };
}

/** Whether the route goes on to compare content (the others finish without reading the commit). */
export const needsContent = (route: ImportRoute): route is ContentRoute =>
  route.kind === 'standalone' || route.kind === 'fast-forward' || route.kind === 'three-way';

/** A file of a revision, as far as the decision looks at it. */
export interface FileFacts {
  id: string;
  name: string;
  sha256: string;
}

export interface ImportSides {
  /** The space's current pages (with their text) and files. */
  ours: { pages: PageMap; files: FileFacts[] };
  /** The commit's pages and files. */
  theirs: { pages: PageMap; files: FileFacts[] };
  /** For a three-way merge: the pages and file ids of the revision last synced. */
  base?: { pages: PageMap; fileIds: string[] };
}

/** A revision to write: its pages, and the files of the space's revision it drops (the commit's files are all added). */
export interface RevisionPlan {
  pages: PageMap;
  removedFiles: string[];
}

export type ImportDecision =
  /** Nothing changes in the space; the commit becomes the one last synced. */
  | { kind: 'unchanged' }
  /** Both sides changed the same content: the commit's content goes to a change request, the space keeps its own. */
  | { kind: 'conflict'; conflicts: MergeConflict[]; changeRequest: RevisionPlan }
  /**
   * A new revision (`revision`); `synced`, when set, is a second one holding the commit's content
   * exactly (the ancestor of the next merge, as the merged revision is not); `moveSpace`: the
   * revision becomes the space's content (not for a standalone import).
   */
  | { kind: 'write'; revision: RevisionPlan; synced: RevisionPlan | null; moveSpace: boolean };

const byId = (files: FileFacts[]) =>
  [...files].sort((x, y) => (x.id < y.id ? -1 : 1)).map(({ id, name, sha256 }) => ({ id, name, sha256 }));

/** The same files (id, name, content), in any order. */
export const sameFiles = (a: FileFacts[], b: FileFacts[]) => a.length === b.length && deepEqual(byId(a), byId(b));

type IncludeFacts = { id: string; title: string; path: string | null; markdown: string };
const includesById = (contents: IncludeFacts[]) =>
  [...contents].sort((x, y) => (x.id < y.id ? -1 : 1)).map(({ id, title, path, markdown }) => ({ id, title, path, markdown }));

/** The same reusable contents (id, title, path, text), in any order. */
export const sameReusableContents = (a: IncludeFacts[], b: IncludeFacts[]) =>
  a.length === b.length && deepEqual(includesById(a), includesById(b));

/** What the import writes, given the route and the content of each side. */
export function decideImport(route: ContentRoute, sides: ImportSides): ImportDecision {
  const { ours, theirs } = sides;
  const theirFileIds = new Set(theirs.files.map((f) => f.id));
  // Every file of the space the commit does not have.
  const notInTheirs = ours.files.filter((f) => !theirFileIds.has(f.id)).map((f) => f.id);
  const unchanged = (plan: RevisionPlan) =>
    deepEqual(plan.pages, ours.pages) && sameFiles(ours.files, theirs.files) && plan.removedFiles.length === 0;

  if (route.kind === 'standalone') {
    return { kind: 'write', revision: { pages: theirs.pages, removedFiles: notInTheirs }, synced: null, moveSpace: false };
  }
  if (route.kind === 'fast-forward') {
    const revision = { pages: theirs.pages, removedFiles: notInTheirs };
    return unchanged(revision) ? { kind: 'unchanged' } : { kind: 'write', revision, synced: null, moveSpace: true };
  }
  if (!sides.base) throw new Error('A three-way import needs the content of the revision last synced');
  const merged = mergePageMaps(sides.base.pages, ours.pages, theirs.pages);
  if (merged.conflicts.length > 0) {
    return { kind: 'conflict', conflicts: merged.conflicts, changeRequest: { pages: theirs.pages, removedFiles: notInTheirs } };
  }
  // Only files the commit deleted since the last sync go: those the space added since stay.
  const baseFileIds = new Set(sides.base.fileIds);
  const revision = {
    pages: merged.result,
    removedFiles: ours.files.filter((f) => baseFileIds.has(f.id) && !theirFileIds.has(f.id)).map((f) => f.id),
  };
  if (unchanged(revision)) return { kind: 'unchanged' };
  return { kind: 'write', revision, synced: { pages: theirs.pages, removedFiles: notInTheirs }, moveSpace: true };
}

/** When the sync is recorded as applied: the request's timestamp, or the last sync's if that is later (never backwards). */
export function appliedAt(lastAppliedAt: Date | null, requestedAt: Date): Date {
  return lastAppliedAt && lastAppliedAt > requestedAt ? new Date(lastAppliedAt) : new Date(requestedAt);
}

/** The subject of the change request a conflicting commit goes to. */
export function conflictSubject(commit: string, message: string): string {
  return `Git Sync: ${message.split('\n')[0].slice(0, 80)} (${commit.slice(0, 7)})`;
}

/** What the sync state and the request say of a conflict, once its change request is numbered. */
export function conflictMessage(commit: string, conflicts: number, changeRequestNumber: number): string {
  return `Commit ${commit.slice(0, 7)} and the space changed the same content (${conflicts} conflict${conflicts === 1 ? '' : 's'}); the repository's version is in change request #${changeRequestNumber}, the space kept its content`;
}
