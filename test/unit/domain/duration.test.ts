import { describe, expect, it } from '@jest/globals';
import { formatDuration, parseDuration } from '../../../src/domain/duration.ts';

describe('durations', () => {
  it('reads units and combinations', () => {
    expect(parseDuration('7d')).toBe(7 * 86_400_000);
    expect(parseDuration('1d12h')).toBe(36 * 3_600_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('3')).toBe(3000);
    expect(parseDuration(' 2s ')).toBe(2000);
  });

  it('refuses what is not a duration', () => {
    for (const bad of ['', 'soon', '7 days', '5x', 'd7', '-3s']) expect(() => parseDuration(bad)).toThrow(/not a duration/);
  });

  it('formats back to the largest whole unit', () => {
    expect(formatDuration(7 * 86_400_000)).toBe('1w');
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(1500)).toBe('1500ms');
  });
});
