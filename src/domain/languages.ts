/** Language codes of translation settings: BCP 47 tags, stored in their canonical form. */

export type LanguagesCheck = { ok: true; languages: string[] } | { ok: false; message: string };

/**
 * Canonicalises every code (`en-us` → `en-US`, `zh-hant-tw` → `zh-Hant-TW`) and drops repeats,
 * keeping the first position. The message of a refusal names the field and the code.
 */
export function canonicalLanguages(codes: readonly string[], field = 'languages'): LanguagesCheck {
  const out: string[] = [];
  for (const [i, code] of codes.entries()) {
    let canonical: string | undefined;
    try {
      [canonical] = Intl.getCanonicalLocales(code);
    } catch {
      canonical = undefined;
    }
    if (!canonical) return { ok: false, message: `${field}[${i}] "${code.slice(0, 64)}" is not a valid BCP 47 language code` };
    if (!out.includes(canonical)) out.push(canonical);
  }
  return { ok: true, languages: out };
}

/** GitBook's `TranslationLanguage`: the values its `language` and `source.language` fields take. */
export const TRANSLATION_LANGUAGES = [
  'en',
  'fr',
  'de',
  'es',
  'it',
  'pt',
  'pt-br',
  'ru',
  'ja',
  'zh',
  'zh-tw',
  'yue',
  'ko',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'sv',
  'no',
  'da',
  'fi',
  'el',
  'cs',
  'hu',
  'ro',
  'th',
  'vi',
  'id',
  'ms',
  'he',
  'uk',
  'sk',
  'bg',
  'hr',
  'lt',
  'lv',
  'et',
  'sl',
] as const;
