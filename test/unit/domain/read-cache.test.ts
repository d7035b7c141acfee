import { describe, expect, it } from '@jest/globals';
import { noteWrite, ReadCache, writesSeen } from '../../../src/domain/read-cache.ts';

const sized = (value: string) => value.length;

function liveCache(maxAgeMs = 5000, maxBytes = 10_000) {
  let now = 1_000;
  const cache = new ReadCache<string>(maxBytes, sized, maxAgeMs, () => now);
  cache.setLive(true);
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('ReadCache', () => {
  it('serves an answer kept while no write was counted, until its age reaches the bound', () => {
    const { cache, advance } = liveCache(5000);
    cache.set('a', cache.ticket(), 'answer');
    expect(cache.get('a')).toBe('answer');
    advance(4999);
    expect(cache.get('a')).toBe('answer');
    advance(1);
    expect(cache.get('a')).toBeUndefined();
  });

  it('stops serving every answer at the next write, from this process or announced', () => {
    const { cache } = liveCache();
    cache.set('a', cache.ticket(), 'one');
    cache.set('b', cache.ticket(), 'two');
    noteWrite();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
    // Kept again after the write, it is served again.
    cache.set('a', cache.ticket(), 'one again');
    expect(cache.get('a')).toBe('one again');
  });

  it('does not keep an answer read while a write was counted (the read may predate the write)', () => {
    const { cache } = liveCache();
    const ticket = cache.ticket();
    noteWrite();
    cache.set('a', ticket, 'read before the write committed');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps and serves nothing while the announcements of other processes are not heard', () => {
    const cache = new ReadCache<string>(10_000, sized, 5000);
    expect(cache.ticket()).toBeUndefined();
    cache.set('a', { writes: writesSeen(), at: Date.now() }, 'answer');
    expect(cache.get('a')).toBeUndefined();

    cache.setLive(true);
    cache.set('a', cache.ticket(), 'answer');
    expect(cache.get('a')).toBe('answer');
    // The feed's connection is lost: what was kept may miss writes from now on, and is dropped.
    cache.setLive(false);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    // Back: an answer kept before the loss is not served again (becoming live counts as a write).
    const before = cache.ticket();
    expect(before).toBeUndefined();
    cache.setLive(true);
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps nothing with a bound of 0 (AUTH_CACHE_TTL=0)', () => {
    const { cache } = liveCache(0);
    expect(cache.ticket()).toBeUndefined();
    cache.set('a', cache.ticket(), 'answer');
    expect(cache.get('a')).toBeUndefined();
  });

  it('is bounded by bytes: the least recently used answers leave first', () => {
    const { cache } = liveCache(5000, 2 * (64 + 100));
    cache.set('a', cache.ticket(), 'x'.repeat(100));
    cache.set('b', cache.ticket(), 'y'.repeat(100));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', cache.ticket(), 'z'.repeat(100));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('serves a kept answer (current) only once it has caught up with the writes of other processes', async () => {
    const { cache } = liveCache();
    cache.set('a', cache.ticket(), 'answer');
    // Catching up hears a write another process committed before the request: the answer is read afresh.
    cache.catchUpWith(async () => {
      noteWrite();
      return true;
    });
    expect(await cache.current('a')).toBeUndefined();
    cache.set('a', cache.ticket(), 'new answer');
    // Caught up with nothing new: served.
    cache.catchUpWith(async () => true);
    expect(await cache.current('a')).toBe('new answer');
    // Not known to be caught up (the feed did not answer): not served, though nothing was heard.
    cache.catchUpWith(async () => false);
    expect(await cache.current('a')).toBeUndefined();
    expect(cache.stats).toEqual({ served: 1, missed: 2 });
  });

  it('does not wait to catch up when it keeps nothing for the key', async () => {
    const { cache } = liveCache();
    let asked = 0;
    cache.catchUpWith(async () => (asked++, true));
    expect(await cache.current('absent')).toBeUndefined();
    expect(asked).toBe(0);
  });
});
