import { describe, expect, it } from '@jest/globals';
import { defaultCustomization, effectiveCustomization, mergeCustomization } from '../../../../src/domain/sites/customization.ts';

describe('customization', () => {
  it('merges objects key by key, replaces the rest, and null restores the default', () => {
    const stored = mergeCustomization({}, { styling: { corners: 'straight' }, header: { links: [{ title: 'a' }] } });
    const shown = effectiveCustomization(stored, 'Site');
    expect(shown.title).toBe('Site');
    expect(shown.styling).toMatchObject({ corners: 'straight', theme: 'clean' });
    expect(shown.header).toEqual({ preset: 'default', links: [{ title: 'a' }] });
    const reset = mergeCustomization(stored, { styling: null });
    expect(effectiveCustomization(reset, 'Site').styling).toEqual(defaultCustomization().styling);
  });
});
