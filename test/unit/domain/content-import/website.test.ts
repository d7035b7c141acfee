import { describe, expect, it } from '@jest/globals';
import { crawlTarget, linkWebsitePages, websiteTree } from '../../../../src/domain/content-import/website.ts';
import { planPages } from '../../../../src/domain/content-import/tree.ts';

const origin = 'https://docs.example.com';

describe('crawlTarget', () => {
  it('follows pages of the same origin, without fragment or query', () => {
    expect(crawlTarget('https://docs.example.com/a/b.html?x=1#y', origin)).toBe('https://docs.example.com/a/b.html');
    expect(crawlTarget('https://docs.example.com/guide/', origin)).toBe('https://docs.example.com/guide/');
  });

  it('does not follow other origins, other schemes or files', () => {
    expect(crawlTarget('https://other.example.com/a', origin)).toBeNull();
    expect(crawlTarget('http://docs.example.com/a', origin)).toBeNull();
    expect(crawlTarget('mailto:a@docs.example.com', origin)).toBeNull();
    expect(crawlTarget('https://docs.example.com/logo.PNG', origin)).toBeNull();
    expect(crawlTarget('https://docs.example.com/manual.pdf', origin)).toBeNull();
    expect(crawlTarget('not a url', origin)).toBeNull();
  });
});

describe('websiteTree', () => {
  it('nests pages under the crawled page of the folder above, in crawl order', () => {
    const tree = websiteTree([
      { url: `${origin}/docs/`, title: 'Docs', markdown: '' },
      { url: `${origin}/docs/guide/`, title: 'Guide', markdown: '' },
      { url: `${origin}/docs/guide/install.html`, title: 'Install', markdown: '' },
      { url: `${origin}/docs/faq`, title: null, markdown: '' },
      { url: `${origin}/docs/guide/index.html`, title: 'Guide again', markdown: '' },
      { url: `${origin}/blog/post`, title: 'Post', markdown: '' },
    ]);
    const shape = (pages: typeof tree): unknown[] => pages.map((p) => (p.children.length ? [p.title, shape(p.children)] : p.title));
    expect(shape(tree)).toEqual(['Docs', ['Guide', ['Install']], 'faq', 'Post']);
  });
});

describe('linkWebsitePages', () => {
  it('turns links to crawled pages into content references, anchors kept', () => {
    const tree = websiteTree([
      { url: `${origin}/`, title: 'Home', markdown: `[g](${origin}/guide/#top) [x](https://x.example/) ![i](${origin}/guide/)\n` },
      { url: `${origin}/guide/`, title: 'Guide', markdown: `[home](${origin}/index.html) [gone](${origin}/gone)\n` },
    ]);
    let n = 0;
    const planned = planPages(tree, () => `p${++n}`);
    const linked = linkWebsitePages(planned, origin);
    expect(linked.get('p1')).toBe(`[g](gitbook://page/p2#top) [x](https://x.example/) ![i](${origin}/guide/)\n`);
    expect(linked.get('p2')).toBe(`[home](gitbook://page/p1) [gone](${origin}/gone)\n`);
  });
});
