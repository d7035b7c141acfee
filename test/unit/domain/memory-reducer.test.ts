import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DEFAULT_MEMORY_REDUCER_POLICY, shouldReduceMemory, type MemoryReducerState } from '../../../src/domain/memory-reducer.ts';

const MB = 2 ** 20;
const policy = DEFAULT_MEMORY_REDUCER_POLICY;
/** A process that last collected at t=0 leaving 200 MB, with its last request ended at t=10 s. */
const state = (over: Partial<MemoryReducerState> = {}): MemoryReducerState => ({
  inFlight: 0,
  lastActivityAt: 10_000,
  lastReducedAt: 0,
  residentAfterLast: 200 * MB,
  largeRequestEnded: false,
  ...over,
});

/** When an idle API process gives its pooled heap pages back (a memory-reducing collection). */
describe('shouldReduceMemory', () => {
  it('collects once the process is idle after growing', () => {
    expect(shouldReduceMemory(state(), 260 * MB, 11_000, policy)).toBe(true);
  });

  it('waits while a request is in flight, however long', () => {
    expect(shouldReduceMemory(state({ inFlight: 1, lastActivityAt: 0 }), 400 * MB, 60_000, policy)).toBe(false);
  });

  it('waits until no request started or ended for idleMs', () => {
    expect(shouldReduceMemory(state(), 260 * MB, 10_000 + policy.idleMs - 1, policy)).toBe(false);
    expect(shouldReduceMemory(state(), 260 * MB, 10_000 + policy.idleMs, policy)).toBe(true);
  });

  it('after a large request, waits only for the requests in flight to end', () => {
    const afterLarge = state({ largeRequestEnded: true });
    expect(shouldReduceMemory(afterLarge, 260 * MB, 10_001, policy)).toBe(true);
    expect(shouldReduceMemory({ ...afterLarge, inFlight: 1 }, 260 * MB, 10_001, policy)).toBe(false);
    expect(shouldReduceMemory(afterLarge, 210 * MB, 10_001, policy)).toBe(false);
  });

  it('does not collect without growth since the last collection', () => {
    expect(shouldReduceMemory(state(), 200 * MB + policy.growthBytes - 1, 20_000, policy)).toBe(false);
    expect(shouldReduceMemory(state(), 150 * MB, 20_000, policy)).toBe(false);
  });

  it('collects at most once per minIntervalMs', () => {
    const recent = state({ lastReducedAt: 9_000, lastActivityAt: 9_500 });
    expect(shouldReduceMemory(recent, 400 * MB, 9_000 + policy.minIntervalMs - 1, policy)).toBe(false);
    expect(shouldReduceMemory(recent, 400 * MB, 9_000 + policy.minIntervalMs, policy)).toBe(true);
  });

  it('never collects with a request in flight, within the interval, before the idle time (unless after a large request) or without growth', () => {
    fc.assert(
      fc.property(
        fc.record({
          inFlight: fc.nat(5),
          lastActivityAt: fc.nat(100_000),
          lastReducedAt: fc.nat(100_000),
          residentAfterLast: fc.nat(2 ** 32),
          largeRequestEnded: fc.boolean(),
        }),
        fc.nat(2 ** 32),
        fc.nat(200_000),
        fc.record({ idleMs: fc.nat(10_000), minIntervalMs: fc.nat(60_000), growthBytes: fc.nat(2 ** 30) }),
        (s, resident, now, p) => {
          const yes = shouldReduceMemory(s, resident, now, p);
          if (s.inFlight > 0 || now - s.lastReducedAt < p.minIntervalMs) expect(yes).toBe(false);
          if (!s.largeRequestEnded && now - s.lastActivityAt < p.idleMs) expect(yes).toBe(false);
          if (resident - s.residentAfterLast < p.growthBytes) expect(yes).toBe(false);
        },
      ),
    );
  });
});
