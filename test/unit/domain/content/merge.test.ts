import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { mergePageMaps, mergeText, type MergeConflict } from '../../../../src/domain/content/merge.ts';
import { validateTree, type PageMap } from '../../../../src/domain/content/tree.ts';
import { applyOps, arbFieldOps, arbOps, arbTextAndMoveOps, arbTree, edit, page, pages, without } from './arbitraries.ts';

const base = pages(
  page('intro', null, 'a0', { slug: 'intro', markdown: 'Welcome\n\nRead on.\n' }),
  page('guides', null, 'a1', { slug: 'guides', markdown: '' }),
  page('install', 'guides', 'a0', { slug: 'install', markdown: 'one\ntwo\nthree\nfour\nfive\n' }),
  page('configure', 'guides', 'a1', { slug: 'configure', emoji: '🔧', layout: { cover: true } }),
);

function kinds(conflicts: MergeConflict[]): string[] {
  return conflicts.map(({ kind, pageId, field }) => (field ? `${kind} ${pageId} ${field}` : `${kind} ${pageId}`));
}

describe('mergeText', () => {
  it('merges edits to different lines', () => {
    const merged = mergeText('one\ntwo\nthree\nfour\nfive\n', 'ONE\ntwo\nthree\nfour\nfive\n', 'one\ntwo\nthree\nfour\nFIVE\n');
    expect(merged).toEqual({ text: 'ONE\ntwo\nthree\nfour\nFIVE\n', clean: true, hunks: [] });
  });

  it('reports a line changed differently on both sides, with the lines of each side', () => {
    const merged = mergeText('one\ntwo\nthree\n', 'one\n2\nthree\n', 'one\nTWO\nthree\n');
    expect(merged.clean).toBe(false);
    expect(merged.hunks).toEqual([{ ours: ['2'], base: ['two'], theirs: ['TWO'] }]);
    expect(merged.text).toBe('one\n<<<<<<< ours\n2\n||||||| base\ntwo\n=======\nTWO\n>>>>>>> theirs\nthree\n');
  });

  it('accepts the same change made on both sides', () => {
    expect(mergeText('a\nb\nc\nd', 'a\nX\nc\nD', 'a\nX\nc\nd')).toEqual({ text: 'a\nX\nc\nD', clean: true, hunks: [] });
  });

  it('keeps the trailing newline exactly as the sides leave it', () => {
    const lines = 'one\ntwo\nthree\nfour';
    // Unchanged everywhere: with and without.
    expect(mergeText(`${lines}\n`, `ONE${lines.slice(3)}\n`, `${lines}\n`).text).toBe(`ONE${lines.slice(3)}\n`);
    expect(mergeText(lines, `ONE${lines.slice(3)}`, lines).text).toBe(`ONE${lines.slice(3)}`);
    // One side drops it while the other edits elsewhere: dropped, and the edit kept.
    expect(mergeText(`${lines}\n`, `ONE${lines.slice(3)}\n`, lines)).toEqual({
      text: `ONE${lines.slice(3)}`,
      clean: true,
      hunks: [],
    });
    // One side adds it while the other edits elsewhere: added.
    expect(mergeText(lines, lines.replace('one', 'ONE'), `${lines}\n`).text).toBe(`ONE${lines.slice(3)}\n`);
    // Both add it: once.
    expect(mergeText(lines, `${lines}\n`, `${lines}\n`).text).toBe(`${lines}\n`);
    // Several trailing newlines are lines like any other.
    expect(mergeText('a\nb\n\n', 'A\nb\n\n', 'a\nb\n\n\n').text).toBe('A\nb\n\n\n');
    // Windows line endings come through untouched.
    expect(mergeText('a\r\nb\r\nc\r\n', 'A\r\nb\r\nc\r\n', 'a\r\nb\r\nC\r\n').text).toBe('A\r\nb\r\nC\r\n');
  });

  it('handles empty texts', () => {
    expect(mergeText('', '', 'new\n').text).toBe('new\n');
    expect(mergeText('old\n', '', 'old\n').text).toBe('');
    expect(mergeText('', 'a\n', 'b\n').clean).toBe(false);
  });

  it('conflicts on changes to adjacent lines, as diff3 does', () => {
    expect(mergeText('one\ntwo\nthree\n', 'ONE\ntwo\nthree\n', 'one\nTWO\nthree\n').clean).toBe(false);
    expect(mergeText('one\ntwo\nthree\n', 'ONE\ntwo\nthree\n', 'one\ntwo\nTHREE\n').clean).toBe(true);
  });

  it('always combines changes separated by an unchanged line', () => {
    // The separating line is unique, so which base line each side changed is never ambiguous.
    const lines = fc.array(fc.constantFrom('a', 'b', ''), { maxLength: 5 });
    fc.assert(
      fc.property(lines, lines, lines, lines, (before, after, ourBefore, theirAfter) => {
        const text = (...parts: string[][]) => parts.flat().join('\n');
        const merged = mergeText(text(before, ['SEP'], after), text(ourBefore, ['SEP'], after), text(before, ['SEP'], theirAfter));
        expect(merged).toEqual({ text: text(ourBefore, ['SEP'], theirAfter), clean: true, hunks: [] });
      }),
    );
  });

  it('gives the same merge, or a conflict, whichever side is ours', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 7 }).map((lines) => lines.join('\n'));
    fc.assert(
      fc.property(text, text, text, (base, ours, theirs) => {
        const one = mergeText(base, ours, theirs);
        const other = mergeText(base, theirs, ours);
        expect(one.clean).toBe(other.clean);
        if (one.clean) expect(one.text).toBe(other.text);
        expect(mergeText(base, base, theirs).text).toBe(theirs);
        expect(mergeText(base, ours, ours).text).toBe(ours);
      }),
      { numRuns: 1000 },
    );
  });

  it('is not confused by lines that look like object properties', () => {
    const merged = mergeText(
      'constructor\n__proto__\ntoString\nx\n',
      'constructor\n__proto__\ntoString\ny\n',
      'hasOwnProperty\n__proto__\ntoString\nx\n',
    );
    expect(merged).toEqual({ text: 'hasOwnProperty\n__proto__\ntoString\ny\n', clean: true, hunks: [] });
  });
});

describe('mergePageMaps', () => {
  it('merges edits to different pages', () => {
    const ours = edit(base, 'intro', { title: 'Welcome' });
    const theirs = edit(base, 'install', { markdown: 'one\ntwo\n' });
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(result).toEqual({ ...base, intro: ours.intro, install: theirs.install });
  });

  it('merges different fields and different lines of the same page', () => {
    const ours = edit(base, 'install', { title: 'Installing', markdown: 'one\nTWO\nthree\nfour\nfive\n' });
    const theirs = edit(base, 'install', { emoji: '📦', markdown: 'one\ntwo\nthree\nFOUR\nfive\n' });
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(result.install).toEqual({
      ...base.install,
      title: 'Installing',
      emoji: '📦',
      markdown: 'one\nTWO\nthree\nFOUR\nfive\n',
    });
  });

  it('reports a line edited differently on both sides as a content conflict', () => {
    const ours = edit(base, 'install', { markdown: 'one\n2\nthree\nfour\nfive\n' });
    const theirs = edit(base, 'install', { markdown: 'one\ndeux\nthree\nfour\nfive\n' });
    const { conflicts } = mergePageMaps(base, ours, theirs);
    expect(conflicts).toEqual([
      expect.objectContaining({
        pageId: 'install',
        kind: 'content',
        hunks: [{ ours: ['2'], base: ['two'], theirs: ['deux'] }],
      }),
    ]);
  });

  it('reports a field changed differently on both sides, naming the field', () => {
    const ours = edit(base, 'configure', { title: 'Configure', layout: { cover: false } });
    const theirs = edit(base, 'configure', { title: 'Configuration', layout: { cover: false } });
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(kinds(conflicts)).toEqual(['field configure title']);
    expect(conflicts[0].message).toContain('title');
    // Same change on both sides (compared deeply) is no conflict.
    expect(result.configure.layout).toEqual({ cover: false });
  });

  it('treats a field set to null as a change from a missing one', () => {
    const ours = edit(base, 'intro', { emoji: null });
    const theirs = edit(base, 'intro', { emoji: '👋' });
    expect(kinds(mergePageMaps(base, ours, theirs).conflicts)).toEqual(['field intro emoji']);
    expect(mergePageMaps(base, ours, base).result.intro.emoji).toBeNull();
  });

  it('applies a move on one side and an edit on the other', () => {
    const ours = edit(base, 'install', { parentId: null, position: 'a2' });
    const theirs = edit(base, 'install', { title: 'Install', markdown: 'one\ntwo\n' });
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(result.install).toMatchObject({ parentId: null, position: 'a2', title: 'Install', markdown: 'one\ntwo\n' });
  });

  it('treats parent and position as one: different moves conflict, the same move does not', () => {
    const reordered = edit(base, 'install', { position: 'a2' });
    const moved = edit(base, 'install', { parentId: null, position: 'a0' });
    expect(kinds(mergePageMaps(base, reordered, moved).conflicts)).toEqual(['move install']);
    const { result, conflicts } = mergePageMaps(base, moved, moved);
    expect(conflicts).toEqual([]);
    expect(result.install).toMatchObject({ parentId: null, position: 'a0' });
  });

  it('deletes a page deleted on one side and untouched on the other', () => {
    const ours = without(base, 'configure');
    const theirs = edit(base, 'intro', { title: 'Hi' });
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(Object.keys(result).sort()).toEqual(['guides', 'install', 'intro']);
    expect(mergePageMaps(base, without(base, 'intro'), without(base, 'intro')).result.intro).toBeUndefined();
  });

  it('reports a page deleted on one side and edited on the other, whichever side deleted it', () => {
    const deleted = without(base, 'install');
    const edited = edit(base, 'install', { markdown: 'changed\n' });
    const one = mergePageMaps(base, deleted, edited);
    expect(kinds(one.conflicts)).toEqual(['delete-edit install']);
    expect(one.conflicts[0].message).toMatch(/deleted by ours and changed by theirs/);
    expect(one.result.install).toEqual(edited.install);
    expect(kinds(mergePageMaps(base, edited, deleted).conflicts)).toEqual(['delete-edit install']);
    // A move is a change too.
    const reordered = edit(base, 'install', { position: 'a9' });
    expect(kinds(mergePageMaps(base, deleted, reordered).conflicts)).toEqual(['delete-edit install']);
  });

  it('keeps pages added on both sides', () => {
    const ours = { ...base, faq: page('faq', null, 'a2', { slug: 'faq' }) };
    const theirs = { ...base, linux: page('linux', 'install', 'a0', { slug: 'linux' }) };
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(result.faq).toEqual(ours.faq);
    expect(result.linux).toEqual(theirs.linux);
  });

  it('merges a page both sides added with the same id field by field', () => {
    const ours = { ...base, faq: page('faq', null, 'a2', { title: 'FAQ', emoji: '❓', markdown: 'Q\n' }) };
    const theirs = { ...base, faq: page('faq', null, 'a2', { title: 'Questions', markdown: 'Q\n' }) };
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(kinds(conflicts)).toEqual(['field faq title']);
    expect(result.faq.emoji).toBe('❓');
    expect(result.faq.title).toBe(mergePageMaps(base, theirs, ours).result.faq.title);
  });

  it('reports a cycle made by two independent moves', () => {
    const map = pages(page('a', null, 'a0'), page('b', null, 'a1'), page('c', 'b', 'a0'));
    const ours = edit(map, 'a', { parentId: 'c' }); // a under c, which is under b
    const theirs = edit(map, 'b', { parentId: 'a' }); // b under a
    expect(validateTree(ours)).toEqual([]);
    expect(validateTree(theirs)).toEqual([]);
    const { conflicts } = mergePageMaps(map, ours, theirs);
    expect(kinds(conflicts)).toEqual(['cycle a', 'cycle b', 'cycle c']);
    expect(kinds(mergePageMaps(map, theirs, ours).conflicts)).toEqual(['cycle a', 'cycle b', 'cycle c']);
  });

  it('reports a page added under a page the other side deleted as an orphan', () => {
    const ours = without(base, 'configure');
    const theirs = { ...base, advanced: page('advanced', 'configure', 'a0', { slug: 'advanced' }) };
    const { result, conflicts } = mergePageMaps(base, ours, theirs);
    expect(kinds(conflicts)).toEqual(['orphan advanced']);
    expect(conflicts[0].message).toContain('configure');
    expect(result.configure).toBeUndefined();
    // Moving an existing page under the deleted one is the same problem.
    const moved = edit(base, 'intro', { parentId: 'configure' });
    expect(kinds(mergePageMaps(base, moved, ours).conflicts)).toEqual(['orphan intro']);
  });

  it('reports two siblings given the same slug by different sides', () => {
    const ours = { ...base, setup: page('setup', 'guides', 'a2', { slug: 'setup' }) };
    const theirs = edit(base, 'install', { slug: 'setup' });
    const { conflicts } = mergePageMaps(base, ours, theirs);
    expect(kinds(conflicts)).toEqual(['slug install', 'slug setup']);
    // The same slug under different parents is fine.
    const elsewhere = { ...base, setup: page('setup', null, 'a2', { slug: 'setup' }) };
    expect(mergePageMaps(base, elsewhere, theirs).conflicts).toEqual([]);
  });

  it('does not blame the merge for problems one side already had', () => {
    const broken = { ...base, stray: page('stray', 'nowhere', 'a0') };
    expect(mergePageMaps(base, broken, edit(base, 'intro', { title: 'Hi' })).conflicts).toEqual([]);
    expect(mergePageMaps(base, base, broken)).toEqual({ result: broken, conflicts: [] });
  });

  it('merges unknown extra fields like the others', () => {
    const withExtra = edit(base, 'intro', { computed: { type: 'openapi' } } as never);
    const { result, conflicts } = mergePageMaps(base, withExtra, edit(base, 'intro', { title: 'Hi' }));
    expect(conflicts).toEqual([]);
    expect(result.intro).toMatchObject({ title: 'Hi', computed: { type: 'openapi' } });
  });

  it('merges 5,000-page revisions with 500 changes on each side', () => {
    const big: PageMap = {};
    for (let i = 0; i < 5000; i++) {
      const parentId = i < 50 ? null : `p${Math.floor(i / 50) - 1}`;
      const markdown = Array.from({ length: 40 }, (_, l) => `line ${l} of ${i}\n`).join('');
      big[`p${i}`] = page(`p${i}`, parentId, `a${i % 50}`, { slug: `s${i}`, markdown });
    }
    let ours = big;
    let theirs = big;
    for (let i = 0; i < 500; i++) {
      const target = `p${i * 10}`;
      const lines = big[target].markdown.split('\n');
      ours = edit(ours, target, { markdown: lines.map((line, l) => (l === 3 ? 'ours' : line)).join('\n') });
      const markdown = lines.map((line, l) => (l === 30 ? 'theirs' : line)).join('\n');
      theirs = edit(theirs, target, { markdown, title: `T${i}` });
    }
    const { result, conflicts } = mergePageMaps(big, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(result.p10.markdown).toContain('\nours\n');
    expect(result.p10.markdown).toContain('\ntheirs\n');
    expect(result.p10.title).toBe('T1');
  });
});

describe('mergePageMaps properties', () => {
  const conflictKeys = (conflicts: MergeConflict[]) =>
    [...new Set(conflicts.map((conflict) => `${conflict.pageId} ${conflict.kind} ${conflict.field ?? ''}`))].sort();

  it('returns the changed side when the other is unchanged, and either side when both are the same', () => {
    fc.assert(
      fc.property(arbTree(), arbOps, (tree, ops) => {
        const x = applyOps(tree, ops, { side: 'x' });
        expect(mergePageMaps(tree, tree, x)).toEqual({ result: x, conflicts: [] });
        expect(mergePageMaps(tree, x, tree)).toEqual({ result: x, conflicts: [] });
        expect(mergePageMaps(tree, x, x)).toEqual({ result: x, conflicts: [] });
      }),
      { numRuns: 300 },
    );
  });

  it('finds the same conflicts whichever side is ours, and the same result when there are none', () => {
    fc.assert(
      fc.property(arbTree(), arbOps, arbOps, (tree, opsA, opsB) => {
        const a = applyOps(tree, opsA, { side: 'a' });
        const b = applyOps(tree, opsB, { side: 'b' });
        const ab = mergePageMaps(tree, a, b);
        const ba = mergePageMaps(tree, b, a);
        expect(conflictKeys(ab.conflicts)).toEqual(conflictKeys(ba.conflicts));
        if (ab.conflicts.length === 0) {
          expect(ab.result).toEqual(ba.result);
          // A conflict-free merge of two valid trees is a valid tree.
          if (validateTree(a).length === 0 && validateTree(b).length === 0) expect(validateTree(ab.result)).toEqual([]);
        }
        for (const conflict of ab.conflicts) {
          if (conflict.kind === 'content') expect(conflict.hunks?.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('merges edits confined to different parts of the tree without conflict, keeping both', () => {
    fc.assert(
      fc.property(arbTree(12), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), arbOps, arbOps, (tree, split, opsA, opsB) => {
        // Each top-level page, with everything under it, belongs to one side.
        const topOf = (id: string): string => (tree[id].parentId === null ? id : topOf(tree[id].parentId!));
        const regionA = new Set<string>();
        const regionB = new Set<string>();
        for (const id of Object.keys(tree)) (split[Number(topOf(id).slice(1)) % 12] ? regionA : regionB).add(id);

        const a = applyOps(tree, opsA, { side: 'a', region: regionA, uniqueSlugs: true });
        const b = applyOps(tree, opsB, { side: 'b', region: regionB, uniqueSlugs: true });
        const both = applyOps(a, opsB, { side: 'b', region: regionB, uniqueSlugs: true });
        const { result, conflicts } = mergePageMaps(tree, a, b);
        expect(conflicts).toEqual([]);
        expect(result).toEqual(both);
      }),
      { numRuns: 300 },
    );
  });

  it('merges field edits on one side with text edits and moves on the other, on any pages', () => {
    fc.assert(
      fc.property(arbTree(), arbFieldOps, arbTextAndMoveOps, (tree, fieldOps, otherOps) => {
        const a = applyOps(tree, fieldOps, { side: 'a' });
        const b = applyOps(tree, otherOps, { side: 'b' });
        const { result, conflicts } = mergePageMaps(tree, a, b);
        expect(conflicts).toEqual([]);
        expect(result).toEqual(applyOps(a, otherOps, { side: 'b' }));
      }),
      { numRuns: 300 },
    );
  });
});
