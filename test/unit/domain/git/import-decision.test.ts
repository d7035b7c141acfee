import { describe, expect, it } from '@jest/globals';
import type { PageMap, PageNode } from '../../../../src/domain/content/tree.ts';
import {
  appliedAt,
  conflictMessage,
  conflictSubject,
  decideImport,
  importRoute,
  needsContent,
  outOfOrder,
  sameFiles,
  type FileFacts,
  type ImportFacts,
} from '../../../../src/domain/git/import-decision.ts';

const page = (id: string, markdown: string, extra: Partial<PageNode> = {}): PageNode => ({
  id,
  parentId: null,
  position: `a${id}`,
  type: 'document',
  title: id.toUpperCase(),
  slug: id,
  markdown,
  ...extra,
});
const pages = (...list: PageNode[]): PageMap => Object.fromEntries(list.map((p) => [p.id, p]));
const file = (id: string, sha256 = `sha-${id}`, name = `${id}.png`): FileFacts => ({ id, name, sha256 });

const t0 = new Date('2026-01-01T00:00:00Z');
const later = new Date('2026-01-02T00:00:00Z');

const facts = (over: Partial<ImportFacts> = {}): ImportFacts => ({
  requestedAt: later,
  force: false,
  standalone: false,
  commit: 'c2',
  lastAppliedAt: t0,
  lastCommit: 'c1',
  lastRevision: 'r-synced',
  spaceRevision: 'r-synced',
  ...over,
});

describe('outOfOrder', () => {
  it('is a request older than the sync last applied, unless forced', () => {
    expect(outOfOrder({ requestedAt: t0, force: false, lastAppliedAt: later })).toBe(true);
    expect(outOfOrder({ requestedAt: t0, force: true, lastAppliedAt: later })).toBe(false);
  });

  it('is not a request as old as, or newer than, the last sync, nor one of a space never synced', () => {
    expect(outOfOrder({ requestedAt: t0, force: false, lastAppliedAt: t0 })).toBe(false);
    expect(outOfOrder({ requestedAt: later, force: false, lastAppliedAt: t0 })).toBe(false);
    expect(outOfOrder({ requestedAt: t0, force: false, lastAppliedAt: null })).toBe(false);
  });
});

describe('importRoute', () => {
  it('skips a request older than the last sync, before anything else', () => {
    expect(importRoute(facts({ requestedAt: t0, lastAppliedAt: later, commit: 'c1', standalone: true }))).toEqual({ kind: 'out-of-order' });
  });

  it('applies an older request when forced', () => {
    expect(importRoute(facts({ requestedAt: t0, lastAppliedAt: later, force: true }))).toEqual({ kind: 'fast-forward' });
  });

  it('finds nothing to do for the commit last synced', () => {
    expect(importRoute(facts({ commit: 'c1' }))).toEqual({ kind: 'same-commit' });
    // Also when the space moved since, and for a standalone import.
    expect(importRoute(facts({ commit: 'c1', spaceRevision: 'r-edited' }))).toEqual({ kind: 'same-commit' });
    expect(importRoute(facts({ commit: 'c1', standalone: true }))).toEqual({ kind: 'same-commit' });
  });

  it('reads the commit last synced again when forced, or when no revision was recorded for it', () => {
    expect(importRoute(facts({ commit: 'c1', force: true }))).toEqual({ kind: 'fast-forward' });
    expect(importRoute(facts({ commit: 'c1', lastRevision: null }))).toEqual({ kind: 'fast-forward' });
  });

  it('writes a standalone import beside the space, never merging it', () => {
    expect(importRoute(facts({ standalone: true }))).toEqual({ kind: 'standalone' });
    expect(importRoute(facts({ standalone: true, spaceRevision: 'r-edited' }))).toEqual({ kind: 'standalone' });
  });

  it('fast-forwards a space unchanged since the last sync, or never synced', () => {
    expect(importRoute(facts())).toEqual({ kind: 'fast-forward' });
    expect(importRoute(facts({ lastAppliedAt: null, lastCommit: null, lastRevision: null, spaceRevision: 'r-new' }))).toEqual({
      kind: 'fast-forward',
    });
  });

  it('merges three ways, from the revision last synced, when the space changed since', () => {
    expect(importRoute(facts({ spaceRevision: 'r-edited' }))).toEqual({ kind: 'three-way', base: 'r-synced' });
  });
});

describe('needsContent', () => {
  it('is true for the routes that compare content only', () => {
    expect(needsContent({ kind: 'out-of-order' })).toBe(false);
    expect(needsContent({ kind: 'same-commit' })).toBe(false);
    expect(needsContent({ kind: 'standalone' })).toBe(true);
    expect(needsContent({ kind: 'fast-forward' })).toBe(true);
    expect(needsContent({ kind: 'three-way', base: 'r' })).toBe(true);
  });
});

describe('sameFiles', () => {
  it('compares id, name and content in any order', () => {
    expect(sameFiles([file('a'), file('b')], [file('b'), file('a')])).toBe(true);
    expect(sameFiles([file('a')], [file('a', 'other-sha')])).toBe(false);
    expect(sameFiles([file('a')], [file('a', 'sha-a', 'renamed.png')])).toBe(false);
    expect(sameFiles([file('a')], [file('a'), file('b')])).toBe(false);
  });
});

describe('decideImport', () => {
  const ours = { pages: pages(page('a', 'A\n'), page('b', 'B\n')), files: [file('f1'), file('f2')] };

  describe('standalone', () => {
    it('writes the commit as it is, without moving the space, even when it equals the space', () => {
      expect(decideImport({ kind: 'standalone' }, { ours, theirs: ours })).toEqual({
        kind: 'write',
        revision: { pages: ours.pages, removedFiles: [] },
        synced: null,
        moveSpace: false,
      });
    });

    it("drops the space's files the commit does not have", () => {
      const theirs = { pages: pages(page('a', 'A2\n')), files: [file('f2'), file('f3')] };
      expect(decideImport({ kind: 'standalone' }, { ours, theirs })).toEqual({
        kind: 'write',
        revision: { pages: theirs.pages, removedFiles: ['f1'] },
        synced: null,
        moveSpace: false,
      });
    });
  });

  describe('fast-forward', () => {
    it('is unchanged when the commit holds the space’s pages and files', () => {
      const theirs = { pages: pages(page('b', 'B\n'), page('a', 'A\n')), files: [file('f2'), file('f1')] };
      expect(decideImport({ kind: 'fast-forward' }, { ours, theirs })).toEqual({ kind: 'unchanged' });
    });

    it("makes the commit's pages the space's content", () => {
      const theirs = { pages: pages(page('a', 'A edited\n'), page('b', 'B\n')), files: ours.files };
      expect(decideImport({ kind: 'fast-forward' }, { ours, theirs })).toEqual({
        kind: 'write',
        revision: { pages: theirs.pages, removedFiles: [] },
        synced: null,
        moveSpace: true,
      });
    });

    it('writes when only the files changed: a file replaced, a file gone', () => {
      const replaced = { pages: ours.pages, files: [file('f1', 'new-sha'), file('f2')] };
      expect(decideImport({ kind: 'fast-forward' }, { ours, theirs: replaced })).toMatchObject({ kind: 'write', moveSpace: true });
      const gone = { pages: ours.pages, files: [file('f1')] };
      expect(decideImport({ kind: 'fast-forward' }, { ours, theirs: gone })).toEqual({
        kind: 'write',
        revision: { pages: ours.pages, removedFiles: ['f2'] },
        synced: null,
        moveSpace: true,
      });
    });
  });

  describe('three-way', () => {
    const route = { kind: 'three-way', base: 'r-synced' } as const;
    const base = { pages: pages(page('a', 'one\ntwo\nthree\n\nfive\n'), page('b', 'B\n')), fileIds: ['f1', 'f2'] };

    it('keeps edits of both sides to different parts, and writes the commit exactly as the next ancestor', () => {
      const mine = { pages: pages(page('a', 'ONE\ntwo\nthree\n\nfive\n'), page('b', 'B\n')), files: ours.files };
      const theirs = { pages: pages(page('a', 'one\ntwo\nthree\n\nFIVE\n'), page('b', 'B\n')), files: ours.files };
      const decision = decideImport(route, { ours: mine, theirs, base });
      expect(decision).toEqual({
        kind: 'write',
        revision: { pages: pages(page('a', 'ONE\ntwo\nthree\n\nFIVE\n'), page('b', 'B\n')), removedFiles: [] },
        synced: { pages: theirs.pages, removedFiles: [] },
        moveSpace: true,
      });
    });

    it('is unchanged when the commit changed nothing since the last sync', () => {
      const mine = { pages: pages(page('a', 'ONE\ntwo\nthree\n\nfive\n'), page('b', 'B\n')), files: ours.files };
      const theirs = { pages: base.pages, files: ours.files };
      expect(decideImport(route, { ours: mine, theirs, base })).toEqual({ kind: 'unchanged' });
    });

    it('removes only the files the commit deleted since the last sync, keeping those the space added', () => {
      const mine = { pages: pages(page('a', 'ONE\ntwo\nthree\n\nfive\n'), page('b', 'B\n')), files: [...ours.files, file('f-space')] };
      const theirs = { pages: base.pages, files: [file('f1')] };
      expect(decideImport(route, { ours: mine, theirs, base })).toEqual({
        kind: 'write',
        revision: { pages: mine.pages, removedFiles: ['f2'] },
        synced: { pages: theirs.pages, removedFiles: ['f2', 'f-space'] },
        moveSpace: true,
      });
    });

    it("sends a conflicting commit to a change request with the commit's content", () => {
      const mine = { pages: pages(page('a', 'one\nTWO MINE\nthree\n\nfive\n'), page('b', 'B\n')), files: [...ours.files, file('f-space')] };
      const theirs = { pages: pages(page('a', 'one\nTWO THEIRS\nthree\n\nfive\n'), page('b', 'B\n')), files: ours.files };
      const decision = decideImport(route, { ours: mine, theirs, base });
      expect(decision).toMatchObject({
        kind: 'conflict',
        conflicts: [{ pageId: 'a', kind: 'content' }],
        changeRequest: { pages: theirs.pages, removedFiles: ['f-space'] },
      });
    });

    it('needs the content of the revision last synced', () => {
      expect(() => decideImport(route, { ours, theirs: ours })).toThrow(/last synced/);
    });
  });
});

describe('appliedAt', () => {
  it('is the request’s timestamp, never earlier than the last sync', () => {
    expect(appliedAt(null, t0)).toEqual(t0);
    expect(appliedAt(t0, later)).toEqual(later);
    expect(appliedAt(later, t0)).toEqual(later);
  });
});

describe('conflict texts', () => {
  it('name the commit by its first line and short id, and count the conflicts', () => {
    expect(conflictSubject('0123456789abcdef', `Rewrite line two\n\nBecause.`)).toBe('Git Sync: Rewrite line two (0123456)');
    expect(conflictSubject('0123456789abcdef', 'x'.repeat(100))).toBe(`Git Sync: ${'x'.repeat(80)} (0123456)`);
    expect(conflictMessage('0123456789abcdef', 1, 7)).toBe(
      "Commit 0123456 and the space changed the same content (1 conflict); the repository's version is in change request #7, the space kept its content",
    );
    expect(conflictMessage('0123456789abcdef', 2, 7)).toContain('(2 conflicts)');
  });
});
