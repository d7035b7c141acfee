import { describe, expect, it } from '@jest/globals';
import { RateWindows, spokenDuration } from '../../../src/domain/rate-window.ts';

describe('RateWindows', () => {
  it('counts a caller up to its max within a window, then refuses until the window ends', () => {
    const windows = new RateWindows(1000, 10);
    const counts = [0, 100, 200].map((at) => windows.hit('a', 2, at));
    expect(counts.map((c) => [c.remaining, c.exceeded, c.resetMs])).toEqual([
      [1, false, 1000],
      [0, false, 900],
      [0, true, 800],
    ]);
    expect(windows.hit('a', 2, 999).exceeded).toBe(true);
    // The window started with the first request: at 1000 a new one starts.
    expect(windows.hit('a', 2, 1000)).toEqual({ max: 2, remaining: 1, resetMs: 1000, exceeded: false });
  });

  it('counts each caller apart, and forgets the least recently seen past its number of callers', () => {
    const windows = new RateWindows(60_000, 2);
    windows.hit('a', 1, 0);
    expect(windows.hit('a', 1, 1).exceeded).toBe(true);
    expect(windows.hit('b', 1, 2).exceeded).toBe(false);
    windows.hit('c', 1, 3);
    // 'a' was the least recently seen of three: forgotten, it starts again.
    expect(windows.hit('a', 1, 4).exceeded).toBe(false);
  });
});

describe('spokenDuration', () => {
  it('says whole units as such, anything else in seconds', () => {
    expect(spokenDuration(3_600_000)).toBe('1 hour');
    expect(spokenDuration(60_000)).toBe('1 minute');
    expect(spokenDuration(900_000)).toBe('15 minutes');
    expect(spokenDuration(90_000)).toBe('90 seconds');
    expect(spokenDuration(1_000)).toBe('1 second');
    expect(spokenDuration(200)).toBe('1 second');
    expect(spokenDuration(2 * 86_400_000)).toBe('2 days');
  });
});
