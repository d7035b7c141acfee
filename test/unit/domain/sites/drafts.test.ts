import { describe, expect, it } from '@jest/globals';
import { liveStructure } from '../../../../src/domain/sites/drafts.ts';

const section = (id: string, draft = false, group_id: string | null = null) => ({ id, draft, group_id });
const siteSpace = (id: string, section_id: string | null, draft = false) => ({ id, section_id, draft });

describe('liveStructure', () => {
  it('keeps a structure without drafts as it is', () => {
    const structure = {
      sections: [section('a'), section('b', false, 'g')],
      siteSpaces: [siteSpace('1', 'a'), siteSpace('2', 'b')],
      groups: [{ id: 'g', draft: false }],
    };
    expect(liveStructure(structure)).toEqual(structure);
  });

  it('leaves out draft site-spaces, at the root and in sections', () => {
    const live = liveStructure({
      sections: [section('a')],
      siteSpaces: [siteSpace('1', null), siteSpace('2', null, true), siteSpace('3', 'a', true), siteSpace('4', 'a')],
      groups: [],
    });
    expect(live.siteSpaces.map((p) => p.id)).toEqual(['1', '4']);
  });

  it('leaves out a draft section with every site-space in it, live ones included', () => {
    const live = liveStructure({
      sections: [section('a'), section('b', true)],
      siteSpaces: [siteSpace('1', 'a'), siteSpace('2', 'b'), siteSpace('3', 'b')],
      groups: [],
    });
    expect(live.sections.map((s) => s.id)).toEqual(['a']);
    expect(live.siteSpaces.map((p) => p.id)).toEqual(['1']);
  });

  it('leaves out a draft group with its sections and their site-spaces', () => {
    const live = liveStructure({
      sections: [section('a', false, 'g'), section('b', false, 'h'), section('c')],
      siteSpaces: [siteSpace('1', 'a'), siteSpace('2', 'b'), siteSpace('3', 'c')],
      groups: [
        { id: 'g', draft: true },
        { id: 'h', draft: false },
      ],
    });
    expect(live.groups.map((g) => g.id)).toEqual(['h']);
    expect(live.sections.map((s) => s.id)).toEqual(['b', 'c']);
    expect(live.siteSpaces.map((p) => p.id)).toEqual(['2', '3']);
  });

  it('takes sections that carry their group draft already (no groups given)', () => {
    const live = liveStructure({
      sections: [section('a', true), section('b')],
      siteSpaces: [siteSpace('1', 'a'), siteSpace('2', 'b')],
      groups: [],
    });
    expect(live.siteSpaces.map((p) => p.id)).toEqual(['2']);
  });
});
