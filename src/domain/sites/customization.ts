/**
 * Customization of a published site. Only what the organization changed is stored; reading merges
 * it over the defaults GitBook uses for a new site, so every required part is always present.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const themed = (color: string) => ({ light: color, dark: color });

export function defaultCustomization(): JsonObject {
  return {
    styling: {
      theme: 'clean',
      primaryColor: themed('#346DDB'),
      infoColor: themed('#787878'),
      successColor: themed('#00C950'),
      warningColor: themed('#FE9A00'),
      dangerColor: themed('#FB2C36'),
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      codeTheme: { default: { light: 'default-light', dark: 'default-dark' }, openapi: { light: 'default-light', dark: 'default-dark' } },
      background: 'plain',
      icons: 'regular',
      sidebar: { background: 'default', list: 'default' },
      search: 'prominent',
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'system', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'search' },
    advancedCustomization: { enabled: true },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { items: ['markdown', 'external-ai'] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: true },
  };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `patch` over `base`: objects merge key by key, anything else (arrays included) replaces; a
 * null removes the key (back to the default when read).
 */
export function mergeCustomization(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isObject(value) && isObject(out[key]) && Object.keys(value).length > 0)
      out[key] = mergeCustomization(out[key] as JsonObject, value);
    else out[key] = value;
  }
  return out;
}

/** What a site shows: the defaults with the stored changes on top, and the site title when none is set. */
export function effectiveCustomization(stored: JsonObject, siteTitle: string): JsonObject {
  const merged = mergeCustomization(defaultCustomization(), stored);
  if (merged.title === undefined) merged.title = siteTitle;
  return merged;
}
