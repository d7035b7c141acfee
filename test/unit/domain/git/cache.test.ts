import { describe, expect, it } from '@jest/globals';
import { gitCacheName } from '../../../../src/domain/git/cache.ts';

describe('gitCacheName', () => {
  const base = { spaceId: 's1', url: 'https://git.test/a.git', organizationId: 'org-a' };

  it('never shares a named cache across organizations', () => {
    expect(gitCacheName({ ...base, repoCacheID: 'shared' })).not.toBe(
      gitCacheName({ ...base, repoCacheID: 'shared', organizationId: 'org-b' }),
    );
  });

  it("shares a named cache among one organization's spaces, whatever their URLs", () => {
    expect(gitCacheName({ ...base, repoCacheID: 'shared' })).toBe(
      gitCacheName({ ...base, spaceId: 's2', url: 'https://git.test/b.git', repoCacheID: 'shared' }),
    );
  });

  it('keeps one cache per space and URL without a cache id', () => {
    expect(gitCacheName(base)).toMatch(/^[0-9a-f]{32}\.git$/);
    expect(gitCacheName(base)).not.toBe(gitCacheName({ ...base, spaceId: 's2' }));
    expect(gitCacheName(base)).not.toBe(gitCacheName({ ...base, url: 'https://git.test/b.git' }));
    expect(gitCacheName(base)).toBe(gitCacheName({ ...base, organizationId: 'org-b' }));
  });
});
