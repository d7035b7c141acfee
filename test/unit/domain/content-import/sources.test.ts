import { describe, expect, it } from '@jest/globals';
import {
  IMPORT_SOURCES,
  isSupportedSource,
  sealContext,
  unsupportedReason,
  wikiRepositoryUrl,
} from '../../../../src/domain/content-import/sources.ts';

describe('import sources', () => {
  it("lists GitBook's sources; six are read here", () => {
    expect(IMPORT_SOURCES).toEqual(['website', 'docx', 'markdown', 'html', 'zip', 'confluence', 'github-wiki', 'notion', 'google-docs']);
    expect(IMPORT_SOURCES.filter(isSupportedSource)).toEqual(['website', 'docx', 'markdown', 'html', 'zip', 'github-wiki']);
  });

  it('says why a source cannot be imported', () => {
    expect(unsupportedReason('zip')).toBeNull();
    expect(unsupportedReason('notion')).toMatch(/Notion.*third-party connector/);
    expect(unsupportedReason('google-docs')).toMatch(/Google Docs.*third-party connector/);
    expect(unsupportedReason('confluence')).toMatch(/Confluence/);
    expect(unsupportedReason('ftp')).toMatch(/Unknown import source "ftp"; use one of website, docx, markdown, html, zip, github-wiki/);
  });

  it('binds sealed URLs to their space', () => {
    expect(sealContext('s1')).toBe('content-import/s1');
  });
});

describe('wikiRepositoryUrl', () => {
  it('finds the git repository of a wiki URL', () => {
    expect(wikiRepositoryUrl('https://github.com/o/r/wiki')).toBe('https://github.com/o/r.wiki.git');
    expect(wikiRepositoryUrl('https://github.com/o/r/wiki/Some-Page?x=1#y')).toBe('https://github.com/o/r.wiki.git');
    expect(wikiRepositoryUrl('https://user:pw@git.example/o/r/wiki/')).toBe('https://user:pw@git.example/o/r.wiki.git');
    expect(wikiRepositoryUrl('https://github.com/o/r.wiki.git')).toBe('https://github.com/o/r.wiki.git');
  });

  it('is null for URLs that name no wiki', () => {
    expect(wikiRepositoryUrl('https://github.com/o/r')).toBeNull();
    expect(wikiRepositoryUrl('https://github.com/wiki')).toBeNull();
    expect(wikiRepositoryUrl('not a url')).toBeNull();
  });
});
