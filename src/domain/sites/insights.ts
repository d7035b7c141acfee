/**
 * Site insights events, as GitBook's renderer tracks them (`trackEventsInSiteById`), turned into
 * the row the store keeps: pure, no I/O. The visitor's IP address never reaches the row: the
 * country (and a coarse point) come from the `x-location-*` headers the renderer forwards.
 */

/** GitBook's window: an event's timestamp must be within 5 minutes of the time it is received. */
export const EVENT_WINDOW_MS = 5 * 60 * 1000;
/** Events in one request. GitBook's schema sets no bound; the renderer sends a handful at a time. */
export const MAX_EVENTS_PER_BATCH = 100;
/** A visitor's claims as stored, serialized, at most this many characters. */
export const MAX_CLAIMS_CHARS = 4096;

export type Browser = 'chrome' | 'firefox' | 'safari' | 'edge' | 'ie' | 'opera' | 'unknown';
export type Device = 'desktop' | 'tablet' | 'mobile' | 'unknown';
export type Os = 'windows' | 'macos' | 'linux' | 'android' | 'ios' | 'unknown';

/** Known crawlers and agents by the token of their user agent (GitBook's SiteInsightsVisitorBot), first match wins. */
const BOTS: [RegExp, string][] = [
  [/googlebot/i, 'googlebot'],
  [/bingbot/i, 'bingbot'],
  [/duckassistbot/i, 'duckassist'],
  [/duckduckbot/i, 'duckduckbot'],
  [/facebookexternalhit|facebookbot/i, 'facebookbot'],
  [/meta-externalagent/i, 'meta-fetcher'],
  [/meta-webindexer/i, 'meta-webindexer'],
  [/applebot/i, 'applebot'],
  [/gptbot/i, 'gptbot'],
  [/chatgpt/i, 'chatgpt'],
  [/oai-searchbot|openai/i, 'openai'],
  [/claudebot/i, 'claudebot'],
  [/claude-code/i, 'claude-code'],
  [/claude-user|claude-searchbot|anthropic/i, 'anthropic'],
  [/perplexity/i, 'perplexity'],
  [/cohere/i, 'cohere'],
  [/mistral/i, 'mistral'],
  [/deepseek/i, 'deepseek'],
  [/bytespider/i, 'bytespider'],
  [/ccbot/i, 'ccbot'],
  [/amazonbot/i, 'amazonbot'],
  [/youbot/i, 'youbot'],
  [/cursor/i, 'cursor'],
  [/github-copilot/i, 'github-copilot'],
  [/vscode/i, 'vscode'],
  [/codex/i, 'codex'],
  [/opencode/i, 'opencode'],
  [/grok/i, 'grok'],
  [/gemini|google-extended/i, 'gemini'],
  [/bot\b|crawler|spider|curl\/|wget\/|python-requests|headless/i, 'unknown'],
];

export interface UserAgent {
  browser: Browser;
  device: Device;
  os: Os;
  bot: string | null;
}

/** What a user agent says about the visitor: browser, device, operating system, crawler (null for none). */
export function parseUserAgent(ua: string): UserAgent {
  const bot = BOTS.find(([re]) => re.test(ua))?.[1] ?? null;
  const browser: Browser = /edg(e|a|ios)?\//i.test(ua)
    ? 'edge'
    : /opr\/|opera/i.test(ua)
      ? 'opera'
      : /msie |trident\//i.test(ua)
        ? 'ie'
        : /firefox\/|fxios\//i.test(ua)
          ? 'firefox'
          : /chrome\/|crios\/|chromium\//i.test(ua)
            ? 'chrome'
            : /safari\//i.test(ua)
              ? 'safari'
              : 'unknown';
  const os: Os = /iphone|ipad|ipod/i.test(ua)
    ? 'ios'
    : /android/i.test(ua)
      ? 'android'
      : /windows/i.test(ua)
        ? 'windows'
        : /mac os x|macintosh/i.test(ua)
          ? 'macos'
          : /linux|x11/i.test(ua)
            ? 'linux'
            : 'unknown';
  const device: Device = /ipad|tablet/i.test(ua)
    ? 'tablet'
    : /mobi|iphone|ipod|android/i.test(ua)
      ? 'mobile'
      : os === 'unknown'
        ? 'unknown'
        : 'desktop';
  return { browser, device, os, bot };
}

/** The host of a URL, without `www.`; null for anything that is not an absolute URL. */
export function urlDomain(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host ? host.replace(/^www\./, '') : null;
  } catch {
    return null;
  }
}

export interface LocationParts {
  urlPath: string;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
}

/** The path of a location URL, and its UTM parameters. */
export function locationParts(url: string): LocationParts {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  const param = (name: string) => parsed?.searchParams.get(name) || null;
  return {
    urlPath: parsed ? decodePath(parsed.pathname) : url,
    utmSource: param('utm_source'),
    utmMedium: param('utm_medium'),
    utmCampaign: param('utm_campaign'),
    utmTerm: param('utm_term'),
    utmContent: param('utm_content'),
  };
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** A country code from the renderer's `x-location-country` header: two letters, else unknown. */
export function countryOf(header: string | undefined): string | null {
  const value = header?.trim().toUpperCase();
  return value && /^[A-Z]{2}$/.test(value) ? value : null;
}

/** A coordinate from the renderer's `x-location-*` headers, rounded to 0.1° (about 11 km); null when absent or out of range. */
export function coordinateOf(header: string | undefined, limit: number): number | null {
  if (header === undefined || header.trim() === '') return null;
  const value = Number(header);
  if (!Number.isFinite(value) || Math.abs(value) > limit) return null;
  return Math.round(value * 10) / 10;
}

/** The kind of a link's target (GitBook's ContentRef `kind`) and the domain of a URL target. */
export function linkTarget(target: { kind: string; url?: string }): { kind: string; domain: string | null } {
  return { kind: target.kind, domain: target.kind === 'url' ? urlDomain(target.url) : null };
}

/** Whether a timestamp is inside GitBook's window around `now`. */
export const inWindow = (at: number, now: number) => Math.abs(at - now) <= EVENT_WINDOW_MS;

/**
 * Whether the visitor was authenticated: on a visitor-auth site always (the renderer only serves
 * authenticated visitors), elsewhere when the event carries claims.
 */
export function visitorAuthenticated(siteVisibility: string, claims: Record<string, unknown> | null | undefined): boolean {
  return siteVisibility === 'visitor-auth' || (!!claims && Object.keys(claims).length > 0);
}

/** The start of the UTC month holding `at`, and of the next. */
export function monthOf(at: Date): { from: Date; to: Date } {
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const to = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { from, to };
}

/** The name of the partition of the month starting at `from`: `site_insights_event_YYYY_MM`. */
export const partitionName = (from: Date) =>
  `site_insights_event_${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, '0')}`;

/** The start of the hour and of the UTC day of `at`. */
export const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
export const dayOf = (at: Date) => new Date(Math.floor(at.getTime() / 86_400_000) * 86_400_000);
