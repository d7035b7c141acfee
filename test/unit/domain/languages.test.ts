import { describe, expect, it } from '@jest/globals';
import { canonicalLanguages } from '../../../src/domain/languages.ts';

describe('translation languages', () => {
  it('canonicalises BCP 47 codes and drops repeats', () => {
    expect(canonicalLanguages(['en-us', 'FR', 'zh-hant-tw', 'en-US', 'de-DE-1901'])).toEqual({
      ok: true,
      languages: ['en-US', 'fr', 'zh-Hant-TW', 'de-DE-1901'],
    });
    expect(canonicalLanguages([])).toEqual({ ok: true, languages: [] });
  });

  it('refuses an invalid code, naming its position and the code', () => {
    expect(canonicalLanguages(['fr', 'en_US'])).toEqual({ ok: false, message: 'languages[1] "en_US" is not a valid BCP 47 language code' });
    for (const bad of ['', '123', 'toolonglanguagecode', 'x-only-private', 'en--US']) {
      expect(canonicalLanguages([bad]).ok).toBe(false);
    }
  });
});
