/**
 * Three-way merge of page maps, used when a change request is merged into its space and when a
 * change request is updated from the space's content. `ours` is the target (the space's current
 * content), `theirs` the incoming side (the change request), `base` their common ancestor.
 *
 * Pages are merged one by one: each scalar field is taken from the side that changed it, the
 * location (parent and position together) likewise, and markdown line by line with diff3. The
 * merged map is then checked for structural problems the two sides created together: a page left
 * under a deleted parent, a cycle of moves, siblings sharing a slug.
 *
 * Where sides conflict, `result` holds a best-effort merge: a conflicting field or location keeps
 * its base value (or, for a page both sides added, the same value whichever side is "ours"), a
 * page deleted on one side and changed on the other is kept as changed, and conflicting markdown
 * carries diff3-style markers. It is meant for display only.
 */
import { diff3Merge } from 'node-diff3';
import { deepEqual, getPage, validateTree, type PageMap, type PageNode, type TreeProblem } from './tree.ts';

export type MergeConflictKind = 'delete-edit' | 'field' | 'move' | 'content' | 'orphan' | 'cycle' | 'slug';

export interface ConflictHunk {
  ours: string[];
  base: string[];
  theirs: string[];
}

export interface MergeConflict {
  pageId: string;
  kind: MergeConflictKind;
  /** For a `field` conflict, the field both sides changed. */
  field?: string;
  message: string;
  /** For a `content` conflict, the lines each side made of the same part of the base. */
  hunks?: ConflictHunk[];
}

export interface PageMapMerge {
  result: PageMap;
  conflicts: MergeConflict[];
}

export interface TextMerge {
  text: string;
  /** True when no part of the text was changed differently by both sides. */
  clean: boolean;
  hunks: ConflictHunk[];
}

/** The page fields merged as single values (objects compared deeply). Unknown extra fields are merged the same way. */
export const MERGED_FIELDS = [
  'type',
  'title',
  'slug',
  'emoji',
  'icon',
  'description',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'layout',
  'cover',
  'href',
] as const satisfies readonly (keyof PageNode)[];

/** Fields with their own rules: the identity, the location (parent and position move together), the text. */
const SPECIAL_FIELDS = new Set<string>(['id', 'parentId', 'position', 'markdown']);
const KNOWN_FIELDS = new Set<string>([...SPECIAL_FIELDS, ...MERGED_FIELDS]);

/**
 * Line-based three-way merge (diff3). Lines are split on `\n` only and joined back the same way, so
 * a trailing newline (or its absence) and `\r\n` endings come through exactly as each side left
 * them; removing or adding the final newline is an edit of the end of the text like any other.
 * As with diff3, changes to adjacent lines conflict: at least one unchanged line must separate the
 * two sides' changes. Conflicting parts are written with diff3 markers in `text`.
 */
export function mergeText(base: string, ours: string, theirs: string): TextMerge {
  if (ours === theirs || theirs === base) return { text: ours, clean: true, hunks: [] };
  if (ours === base) return { text: theirs, clean: true, hunks: [] };

  const a = ours.split('\n');
  const o = base.split('\n');
  const b = theirs.split('\n');

  // Common case first: each side changed one stretch of the base, and at least one unchanged line
  // separates the two stretches. The result is then each side's stretch with the base between.
  const changedA = changedStretch(o, a);
  const changedB = changedStretch(o, b);
  if (changedA.end < changedB.start || changedB.end < changedA.start) {
    const [first, firstLines, second, secondLines] =
      changedA.end < changedB.start ? [changedA, a, changedB, b] : [changedB, b, changedA, a];
    const lines = firstLines.slice(0, firstLines.length - (o.length - first.end));
    for (let i = first.end; i < second.start; i++) lines.push(o[i]);
    for (let i = second.start; i < secondLines.length; i++) lines.push(secondLines[i]);
    return { text: lines.join('\n'), clean: true, hunks: [] };
  }

  // Otherwise diff3 decides. Lines all three share at the start and end are stable: leave them
  // out of the diff, which is then only as large as the changed middle.
  const shortest = Math.min(a.length, o.length, b.length);
  let head = 0;
  while (head < shortest && a[head] === o[head] && b[head] === o[head]) head++;
  let tail = 0;
  while (tail < shortest - head && a[a.length - 1 - tail] === o[o.length - 1 - tail] && b[b.length - 1 - tail] === o[o.length - 1 - tail]) {
    tail++;
  }

  const lines: string[] = a.slice(0, head);
  const hunks: ConflictHunk[] = [];
  const regions = diff3Merge(a.slice(head, a.length - tail), o.slice(head, o.length - tail), b.slice(head, b.length - tail), {
    excludeFalseConflicts: true,
  });
  for (const region of regions) {
    if (region.ok) {
      for (const line of region.ok) lines.push(line);
    } else if (region.conflict) {
      const hunk = { ours: region.conflict.a, base: region.conflict.o, theirs: region.conflict.b };
      hunks.push(hunk);
      lines.push('<<<<<<< ours');
      for (const line of hunk.ours) lines.push(line);
      lines.push('||||||| base');
      for (const line of hunk.base) lines.push(line);
      lines.push('=======');
      for (const line of hunk.theirs) lines.push(line);
      lines.push('>>>>>>> theirs');
    }
  }
  for (let i = a.length - tail; i < a.length; i++) lines.push(a[i]);
  return { text: lines.join('\n'), clean: hunks.length === 0, hunks };
}

/**
 * The stretch of `base` lines, [start, end), outside of which `side` has the same lines as `base`:
 * everything before `start` is a shared prefix, everything from `end` on a shared suffix.
 */
function changedStretch(base: string[], side: string[]): { start: number; end: number } {
  const shortest = Math.min(base.length, side.length);
  let start = 0;
  while (start < shortest && base[start] === side[start]) start++;
  let tail = 0;
  while (tail < shortest - start && base[base.length - 1 - tail] === side[side.length - 1 - tail]) tail++;
  return { start, end: base.length - tail };
}

/**
 * Merge the pages of two revisions derived from `base`. Pure; linear in the number of pages, plus
 * the diffs of the texts both sides changed.
 */
export function mergePageMaps(base: PageMap, ours: PageMap, theirs: PageMap): PageMapMerge {
  const result: PageMap = {};
  const conflicts: MergeConflict[] = [];

  const visit = (id: string) => {
    const b = getPage(base, id);
    const o = getPage(ours, id);
    const t = getPage(theirs, id);
    if (o && t) {
      result[id] = mergePage(id, b, o, t, conflicts);
      return;
    }
    const kept = (o ?? t)!;
    if (!b) {
      result[id] = kept; // added on one side only
      return;
    }
    if (deepEqual(kept, b)) return; // deleted on one side, untouched on the other
    const [deleter, editor] = o ? ['theirs', 'ours'] : ['ours', 'theirs'];
    conflicts.push({
      pageId: id,
      kind: 'delete-edit',
      message: `page "${kept.title}" was deleted by ${deleter} and changed by ${editor}`,
    });
    result[id] = kept;
  };
  for (const id of Object.keys(ours)) visit(id);
  for (const id of Object.keys(theirs)) if (!Object.hasOwn(ours, id)) visit(id);
  // Pages only in base were deleted on both sides.

  conflicts.push(...structuralConflicts(result, ours, theirs));
  conflicts.sort((x, y) => (x.pageId < y.pageId ? -1 : x.pageId > y.pageId ? 1 : 0));
  return { result, conflicts };
}

function mergePage(id: string, b: PageNode | undefined, o: PageNode, t: PageNode, conflicts: MergeConflict[]): PageNode {
  if (o === t || deepEqual(o, t)) return o;
  if (b && deepEqual(o, b)) return t;
  if (b && deepEqual(t, b)) return o;

  const title = o.title;
  const merged: Record<string, unknown> = { id };

  const location = pick(
    b !== undefined,
    b && { parentId: b.parentId, position: b.position },
    { parentId: o.parentId, position: o.position },
    { parentId: t.parentId, position: t.position },
  );
  if (location.conflict) {
    conflicts.push({ pageId: id, kind: 'move', message: `both sides moved page "${title}", to different places` });
  }
  merged.parentId = location.value!.parentId;
  merged.position = location.value!.position;

  for (const field of fieldsOf(b, o, t)) {
    const key = field as keyof PageNode;
    const chosen = pick(b !== undefined, b?.[key], o[key], t[key]);
    if (chosen.conflict) {
      conflicts.push({
        pageId: id,
        kind: 'field',
        field,
        message: `both sides changed the ${field} of page "${title}", to different values`,
      });
    }
    if (chosen.value !== undefined) merged[field] = chosen.value;
  }

  const text = mergeText(b?.markdown ?? '', o.markdown, t.markdown);
  if (!text.clean) {
    const parts = text.hunks.length === 1 ? 'one part' : `${text.hunks.length} parts`;
    conflicts.push({
      pageId: id,
      kind: 'content',
      message: `both sides changed ${parts} of the content of page "${title}" differently`,
      hunks: text.hunks,
    });
  }
  merged.markdown = text.text;
  return merged as unknown as PageNode;
}

/** The merged fields present on any version of the page: the known ones in a fixed order, then any others. */
function fieldsOf(...nodes: (PageNode | undefined)[]): string[] {
  const fields: string[] = [...MERGED_FIELDS];
  for (const node of nodes) {
    if (!node) continue;
    for (const key of Object.keys(node)) if (!KNOWN_FIELDS.has(key) && !fields.includes(key)) fields.push(key);
  }
  return fields;
}

/**
 * The three-way rule for one value: the side that changed it wins; the same change on both sides is
 * no conflict. On a conflict the base value stands; with no base (both sides added the page) the
 * value chosen does not depend on which side is which, so a best-effort result is symmetric.
 */
function pick<T>(hasBase: boolean, base: T | undefined, ours: T, theirs: T): { value: T | undefined; conflict: boolean } {
  if (deepEqual(ours, theirs)) return { value: ours, conflict: false };
  if (deepEqual(ours, base)) return { value: theirs, conflict: false };
  if (deepEqual(theirs, base)) return { value: ours, conflict: false };
  if (hasBase) return { value: base, conflict: true };
  return { value: canonical(ours) <= canonical(theirs) ? ours : theirs, conflict: true };
}

/** A JSON text for a value with object keys sorted, so equal values always give equal texts. */
function canonical(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(',')}}`;
}

const PROBLEM_KINDS: Partial<Record<TreeProblem['kind'], MergeConflictKind>> = {
  'missing-parent': 'orphan',
  cycle: 'cycle',
  'duplicate-slug': 'slug',
};

function problemKey(problem: TreeProblem): string {
  return `${problem.kind}\u0000${problem.pageId}\u0000${problem.parentId ?? ''}\u0000${problem.slug ?? ''}`;
}

/**
 * Structural problems of the merged map that neither side had on its own: those are created by
 * combining the two sides. A problem already present in `ours` or `theirs` is not the merge's doing
 * and is passed through silently (so merging with an unchanged side never reports anything).
 */
function structuralConflicts(result: PageMap, ours: PageMap, theirs: PageMap): MergeConflict[] {
  const problems = validateTree(result).filter((problem) => PROBLEM_KINDS[problem.kind] !== undefined);
  if (problems.length === 0) return [];
  const existing = new Set<string>();
  for (const problem of validateTree(ours)) existing.add(problemKey(problem));
  for (const problem of validateTree(theirs)) existing.add(problemKey(problem));

  const conflicts: MergeConflict[] = [];
  for (const problem of problems) {
    if (existing.has(problemKey(problem))) continue;
    const node = result[problem.pageId];
    const kind = PROBLEM_KINDS[problem.kind]!;
    let message: string;
    if (kind === 'orphan') {
      message =
        `page "${node.title}" is under page ${problem.parentId}, ` + 'which one side deleted while the other put this page under it';
    } else if (kind === 'cycle') {
      message = `moves made by the two sides put page "${node.title}" inside itself: ${problem.message}`;
    } else {
      message = `once both sides' changes are combined, page "${node.title}" ` + `shares the slug "${problem.slug}" with a sibling`;
    }
    conflicts.push({ pageId: problem.pageId, kind, message });
  }
  return conflicts;
}
