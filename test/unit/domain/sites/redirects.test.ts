import { describe, expect, it } from '@jest/globals';
import { canonicalParts, isSourcePath, sourceUnder } from '../../../../src/domain/sites/redirects.ts';
import { layoutRedirects, readLayout } from '../../../../src/domain/git/layout.ts';

describe('redirect sources', () => {
  it('accepts GitBook source paths and refuses the rest', () => {
    for (const ok of ['/a', '/a/b', '/a/*', '/a*', '/v1.2/x~y+z', '/caf%C3%A9']) expect(isSourcePath(ok)).toBe(true);
    for (const bad of ['', 'a', '/', '/*', '/a*b', '/a/*/b', '/a b', '/a//b', '/café', `/${'x'.repeat(512)}`])
      expect(isSourcePath(bad)).toBe(false);
  });

  it('makes the source of a page path under a site-space, escaping what a source cannot hold', () => {
    expect(sourceUnder([null, null], 'old/install')).toBe('/old/install');
    expect(sourceUnder(['api', 'v2'], 'old page/(draft)')).toBe('/api/v2/old%20page/%28draft%29');
    expect(sourceUnder([null, null], '')).toBeNull();
  });

  it('leaves out the default section and the default site-space of a level', () => {
    const sections = [
      { id: 's1', path: 'guides', is_default: true, position: 'a' },
      { id: 's2', path: 'api', is_default: false, position: 'b' },
    ];
    const siteSpaces = [
      { id: 'p1', section_id: 's2', path: 'v1', is_default: true, position: 'a' },
      { id: 'p2', section_id: 's2', path: 'v2', is_default: false, position: 'b' },
      { id: 'p3', section_id: 's1', path: 'main', is_default: false, position: 'a' },
    ];
    expect(canonicalParts(sections, siteSpaces, siteSpaces[0])).toEqual(['api', null]);
    expect(canonicalParts(sections, siteSpaces, siteSpaces[1])).toEqual(['api', 'v2']);
    expect(canonicalParts(sections, siteSpaces, siteSpaces[2])).toEqual([null, null]);
  });
});

describe('.gitbook.yaml redirects as pages', () => {
  it('maps each old path to the page of the file it names, relative to the root', () => {
    const layout = readLayout({
      markdown: {
        'docs/README.md': '# Home\n',
        'docs/guides/README.md': '# Guides\n',
        'docs/guides/install.md': '# Install\n',
      },
      assets: [],
      gitbookYaml: 'root: ./docs/\nredirects:\n  old/install: guides/install.md\n  old/guides: guides\n  gone: nowhere.md\n',
    });
    const install = Object.entries(layout.pageFiles).find(([, f]) => f === 'docs/guides/install.md')![0];
    const guides = Object.entries(layout.pageFiles).find(([, f]) => f === 'docs/guides/README.md')![0];
    expect(layoutRedirects(layout)).toEqual([
      { path: 'old/install', pageId: install },
      { path: 'old/guides', pageId: guides },
    ]);
  });
});
