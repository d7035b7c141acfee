import { describe, expect, it } from '@jest/globals';
import {
  lookupPage,
  pageIndex,
  resolveSitePath,
  visibleStructure,
  type SectionNode,
  type SiteSpaceNode,
} from '../../../../src/domain/sites/resolve.ts';
import { parsePublishedUrl, shareKeyCandidates, siteBaseUrl, siteUrl } from '../../../../src/domain/sites/urls.ts';
import { conditionContext } from '../../../../src/domain/sites/conditions.ts';
import type { PageMap } from '../../../../src/domain/content/tree.ts';

const SITES = 'https://docs.example.com/sites';

describe('parsePublishedUrl', () => {
  it('reads the service scheme: organization, basename or id, then the rest', () => {
    const own = parsePublishedUrl(`${SITES}/org1/api/guides/install?shareKey=k`, SITES);
    expect(own).toMatchObject({ kind: 'own', organizationId: 'org1', siteKey: 'api', segments: ['guides', 'install'] });
    expect(own!.query.get('shareKey')).toBe('k');
    expect(parsePublishedUrl(`${SITES}/org1`, SITES)).toBeNull();
  });

  it('reads other hosts as a hostname plus proxy prefixes', () => {
    const host = parsePublishedUrl('https://Company.com/docs/v2/page', SITES);
    expect(host).toMatchObject({
      kind: 'host',
      hostname: 'company.com',
      proxies: ['company.com/docs', 'company.com/docs/v2', 'company.com/docs/v2/page'],
      segments: ['docs', 'v2', 'page'],
    });
  });

  it("names the segments that may be a share key: of the key's form, where a site's base can end", () => {
    const key = 'Ab3_-'.padEnd(32, 'x');
    expect(shareKeyCandidates(parsePublishedUrl(`${SITES}/org1/api/${key}/guides`, SITES)!)).toEqual([key]);
    // Under the service's scheme the key follows the site at once.
    expect(shareKeyCandidates(parsePublishedUrl(`${SITES}/org1/api/guides/${key}`, SITES)!)).toEqual([]);
    // Under a host, after the origin or any proxy prefix.
    expect(shareKeyCandidates(parsePublishedUrl(`https://a.com/help/${key}/page`, SITES)!)).toEqual([key]);
    // Not of the form: too short, too long, or a character base64url has not.
    for (const segment of [key.slice(1), `${key}x`, `${key.slice(1)}.`]) {
      expect(shareKeyCandidates(parsePublishedUrl(`https://a.com/${encodeURIComponent(segment)}`, SITES)!)).toEqual([]);
    }
  });

  it('refuses what cannot name a site', () => {
    for (const url of ['ftp://x.com/a', 'not a url', 'https://x.com/%E0%A4%A']) expect(parsePublishedUrl(url, SITES)).toBeNull();
  });

  it('builds base URLs: proxy, then hostname, then the service scheme', () => {
    const site = { id: 's1', organizationId: 'o1', basename: null, hostname: null, proxy: null };
    expect(siteBaseUrl(site, SITES)).toBe(`${SITES}/o1/s1`);
    expect(siteBaseUrl({ ...site, basename: 'api' }, SITES)).toBe(`${SITES}/o1/api`);
    expect(siteBaseUrl({ ...site, hostname: 'docs.a.com' }, SITES)).toBe('https://docs.a.com');
    expect(siteBaseUrl({ ...site, hostname: 'docs.a.com', proxy: 'a.com/docs' }, SITES)).toBe('https://a.com/docs');
    expect(siteUrl('https://a.com', ['sec', null, 'a b/c'], { shareKey: 'k' })).toBe('https://a.com/sec/a%20b/c?shareKey=k');
  });
});

const sections = [
  { id: 's1', path: 'docs', condition: null, isDefault: true, position: 'a0' },
  { id: 's2', path: 'beta', condition: 'visitor.claims.unsigned.beta == true', isDefault: false, position: 'a1' },
];
const siteSpaces = [
  { id: 'p1', sectionId: 's1', path: 'v1', condition: null, isDefault: true, position: 'a0' },
  { id: 'p2', sectionId: 's1', path: 'v2', condition: null, isDefault: false, position: 'a1' },
  { id: 'p3', sectionId: 's2', path: 'main', condition: null, isDefault: true, position: 'a0' },
];

describe('resolveSitePath', () => {
  it('takes named parts, else defaults', () => {
    expect(resolveSitePath(sections, siteSpaces, ['docs', 'v2', 'a', 'b'])).toMatchObject({
      section: { id: 's1' },
      siteSpace: { id: 'p2' },
      sectionPart: 'docs',
      siteSpacePart: 'v2',
      pageSegments: ['a', 'b'],
      sectionIsDefault: true,
      siteSpaceIsDefault: false,
    });
    expect(resolveSitePath(sections, siteSpaces, ['a'])).toMatchObject({
      section: { id: 's1' },
      siteSpace: { id: 'p1' },
      sectionPart: null,
      siteSpacePart: null,
      pageSegments: ['a'],
    });
    expect(resolveSitePath(sections, siteSpaces, ['beta'])).toMatchObject({
      section: { id: 's2' },
      siteSpace: { id: 'p3' },
      pageSegments: [],
    });
    expect(resolveSitePath([], [{ ...siteSpaces[0], sectionId: null }], ['x'])).toMatchObject({
      section: null,
      siteSpace: { id: 'p1' },
      pageSegments: ['x'],
    });
    expect(resolveSitePath([], [], [])).toBeNull();
  });

  it("takes a site-space in GitBook's variant form, v/<path>, keeping the form", () => {
    expect(resolveSitePath(sections, siteSpaces, ['docs', 'v', 'v2', 'a'])).toMatchObject({
      siteSpace: { id: 'p2' },
      sectionPart: 'docs',
      siteSpacePart: 'v/v2',
      pageSegments: ['a'],
      complete: true,
    });
    expect(resolveSitePath(sections, siteSpaces, ['v', 'v2'])).toMatchObject({
      siteSpace: { id: 'p2' },
      siteSpacePart: 'v/v2',
      pageSegments: [],
    });
    // Not a variant of the section: the default site-space, the rest a page path.
    expect(resolveSitePath(sections, siteSpaces, ['v', 'main'])).toMatchObject({ siteSpace: { id: 'p1' }, pageSegments: ['v', 'main'] });
    // A site-space whose path is `v` is named by it.
    const withV = [
      { ...siteSpaces[0], sectionId: null },
      { ...siteSpaces[1], sectionId: null, path: 'v' },
    ];
    expect(resolveSitePath([], withV, ['v', 'v1'])).toMatchObject({ siteSpace: { id: 'p2' }, siteSpacePart: 'v', pageSegments: ['v1'] });
  });

  it('is complete once every level with a choice was named: nothing after could pick another', () => {
    const complete = (segments: string[], ss: SectionNode[] = sections, ps: SiteSpaceNode[] = siteSpaces) =>
      resolveSitePath(ss, ps, segments)!.complete;
    // Two sections: a path not naming one could still be followed by a section's path.
    expect(complete([])).toBe(false);
    expect(complete(['a', 'b'])).toBe(false);
    // The docs section has two site-spaces: one must be named too.
    expect(complete(['docs'])).toBe(false);
    expect(complete(['docs', 'a'])).toBe(false);
    expect(complete(['docs', 'v2'])).toBe(true);
    expect(complete(['docs', 'v1', 'a', 'b'])).toBe(true);
    // The beta section has one site-space: naming the section settles it.
    expect(complete(['beta'])).toBe(true);
    expect(complete(['beta', 'main'])).toBe(true);
    // One section with one site-space: always complete; no sections: the site-spaces decide.
    expect(complete([], [sections[1]], [siteSpaces[2]])).toBe(true);
    expect(complete(['x'], [], [{ ...siteSpaces[0], sectionId: null }])).toBe(true);
    const roots = siteSpaces.slice(0, 2).map((p) => ({ ...p, sectionId: null }));
    expect(complete(['x'], [], roots)).toBe(false);
    expect(complete(['v2', 'x'], [], roots)).toBe(true);
  });

  it('resolves only what the visitor may see', () => {
    const anonymous = visibleStructure(sections, siteSpaces, conditionContext({ signed: {}, unsigned: {} }));
    expect(resolveSitePath(anonymous.sections, anonymous.siteSpaces, ['beta'])).toMatchObject({
      section: { id: 's1' },
      pageSegments: ['beta'],
    });
    const beta = visibleStructure(sections, siteSpaces, conditionContext({ signed: {}, unsigned: { beta: true } }));
    expect(resolveSitePath(beta.sections, beta.siteSpaces, ['beta'])).toMatchObject({ section: { id: 's2' } });
    // A default the visitor cannot see gives way to the first visible one.
    const hidden = visibleStructure(
      [
        { ...sections[0], condition: 'false' },
        { ...sections[1], condition: null },
      ],
      siteSpaces,
      {},
    );
    expect(resolveSitePath(hidden.sections, hidden.siteSpaces, [])).toMatchObject({ section: { id: 's2' } });
  });
});

describe('pageIndex and lookupPage', () => {
  const page = (id: string, parentId: string | null, position: string, slug: string, type: 'document' | 'group' = 'document') => ({
    id,
    parentId,
    position,
    slug,
    type,
    title: slug.toUpperCase(),
    markdown: '',
  });
  const map: PageMap = {
    g: page('g', null, 'a0', 'guides', 'group'),
    i: page('i', 'g', 'a0', 'install'),
    l: page('l', 'i', 'a0', 'linux'),
    w: page('w', null, 'a1', 'welcome'),
  };
  const index = pageIndex(map);

  it('finds pages by path, the first document page, and redirects groups', () => {
    expect(lookupPage(index, ['guides', 'install', 'linux'])).toEqual({
      kind: 'page',
      page: { id: 'l', title: 'LINUX', type: 'document', path: 'guides/install/linux' },
    });
    expect(lookupPage(index, [])).toMatchObject({ kind: 'page', page: { id: 'i' } });
    expect(lookupPage(index, ['guides'])).toMatchObject({ kind: 'redirect', page: { id: 'i' } });
    expect(lookupPage(index, ['nope'])).toEqual({ kind: 'missing' });
    expect(lookupPage(pageIndex({}), [])).toEqual({ kind: 'missing' });
    expect(index.byId.get('l')?.path).toBe('guides/install/linux');
  });
});
