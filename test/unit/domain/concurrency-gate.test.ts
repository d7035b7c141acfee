import { describe, expect, it } from '@jest/globals';
import { ConcurrencyGate } from '../../../src/domain/concurrency-gate.ts';

describe('ConcurrencyGate', () => {
  it('admits up to max per key, each key on its own, and admits again once one leaves', () => {
    const gate = new ConcurrencyGate();
    expect([gate.enter('a', 2), gate.enter('a', 2), gate.enter('a', 2)]).toEqual([true, true, false]);
    expect(gate.enter('b', 2)).toBe(true);
    gate.leave('a');
    expect(gate.running('a')).toBe(1);
    expect(gate.enter('a', 2)).toBe(true);
    expect(gate.enter('a', 2)).toBe(false);
  });

  it('has no bound with max 0, and forgets a key with nothing in flight', () => {
    const gate = new ConcurrencyGate();
    for (let i = 0; i < 1000; i++) expect(gate.enter('a', 0)).toBe(true);
    for (let i = 0; i < 1000; i++) gate.leave('a');
    expect(gate.running('a')).toBe(0);
  });

  it('leaves when the work fails, and does not run refused work', async () => {
    const gate = new ConcurrencyGate();
    await expect(gate.within('a', 1, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(gate.running('a')).toBe(0);
    let release!: () => void;
    const held = gate.within('a', 1, () => new Promise<string>((done) => (release = () => done('first'))));
    let ran = false;
    expect(
      await gate.within('a', 1, async () => {
        ran = true;
        return 'second';
      }),
    ).toBeUndefined();
    expect(ran).toBe(false);
    release();
    expect(await held).toBe('first');
    expect(await gate.within('a', 1, async () => 'third')).toBe('third');
  });
});
