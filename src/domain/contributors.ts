/**
 * The contributors of a change request: one entry per user and kind of contribution, with how
 * many contributions and when the last one was made, most recent first.
 */

export type ContributionKind = 'edit' | 'comment';

/** Contributions of one user of one kind, as counted by a query (time as the database gave it). */
export interface ContributionTally {
  userId: string | null;
  kind: ContributionKind;
  count: number;
  last: string | Date;
}

export interface Contributor {
  userId: string;
  kind: ContributionKind;
  count: number;
  /** ISO 8601. */
  updatedAt: string;
}

/** Adds up tallies of the same user and kind (counts summed, latest time kept); users gone are left out. */
export function mergeContributions(tallies: ContributionTally[]): Contributor[] {
  const out = new Map<string, Contributor>();
  for (const t of tallies) {
    if (!t.userId || t.count <= 0) continue;
    const at = new Date(t.last).toISOString();
    const key = `${t.kind}:${t.userId}`;
    const known = out.get(key);
    if (!known) out.set(key, { userId: t.userId, kind: t.kind, count: t.count, updatedAt: at });
    else {
      known.count += t.count;
      if (at > known.updatedAt) known.updatedAt = at;
    }
  }
  return [...out.values()].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.userId < b.userId ? -1 : 1));
}
