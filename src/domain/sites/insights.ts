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

/** An event as the store keeps it (no IP address: there is no column for one). */
export interface InsightsRow {
  organizationId: string;
  siteId: string;
  occurredAt: Date;
  eventType: string;
  visitorId: string;
  sessionId: string;
  url: string;
  urlPath: string;
  displayContext: string;
  siteSection: string | null;
  siteSpace: string | null;
  siteShareKey: string | null;
  space: string | null;
  revision: string | null;
  page: string | null;
  pageNotFoundType: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  language: string | null;
  browser: string;
  device: string;
  os: string;
  bot: string | null;
  referrer: string | null;
  referrerDomain: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  visitorAuthenticated: boolean;
  claims: Record<string, unknown> | null;
  searchQuery: string | null;
  searchResultRecordId: string | null;
  feedbackRating: string | null;
  feedbackComment: string | null;
  askRating: number | null;
  linkTargetKind: string | null;
  linkTargetValue: Record<string, unknown> | null;
  linkTargetDomain: string | null;
  linkPosition: string | null;
  apiPath: string | null;
  apiMethod: string | null;
  llmsVariant: string | null;
  markdownSource: string | null;
  adDomain: string | null;
  adPlacement: string | null;
  trademarkPlacement: string | null;
  detail: Record<string, unknown> | null;
}

export interface RollupCount {
  siteId: string;
  at: Date;
  eventType: string;
  urlPath: string;
  searchQuery: string;
  events: number;
}

/** The length-prefixed key of one counting: one key per distinct tuple, whatever characters the parts hold. */
const countKey = (c: Omit<RollupCount, 'events'>) =>
  `${c.siteId.length}:${c.siteId}${c.at.getTime()}:${c.eventType.length}:${c.eventType}${c.urlPath.length}:${c.urlPath}${c.searchQuery}`;

function addCount(counts: Map<string, RollupCount>, count: RollupCount): void {
  const key = countKey(count);
  const found = counts.get(key);
  if (found) found.events += count.events;
  else counts.set(key, count);
}

/**
 * Adds the events to their counts per site and hour, four times each: by type and URL path, by
 * type and search query (`url_path` '', which no event's path is: paths start with `/`), by URL
 * path over every type (`event_type` ''), and in all (both ''). Counting by path and query at once
 * would multiply the rows by the queries of every path; the typeless countings let the dashboard's
 * queries (by path, by day) read a row per path or per period instead of one per path and type.
 */
export function countHourly(counts: Map<string, RollupCount>, rows: InsightsRow[]): void {
  for (const { siteId, occurredAt, eventType, urlPath, searchQuery } of rows) {
    const at = hourOf(occurredAt);
    addCount(counts, { siteId, at, eventType, urlPath, searchQuery: '', events: 1 });
    addCount(counts, { siteId, at, eventType, urlPath: '', searchQuery: searchQuery ?? '', events: 1 });
    addCount(counts, { siteId, at, eventType: '', urlPath, searchQuery: '', events: 1 });
    addCount(counts, { siteId, at, eventType: '', urlPath: '', searchQuery: '', events: 1 });
  }
}

/** Hourly counts summed by UTC day. */
export function dailyCounts(hourly: Map<string, RollupCount>): Map<string, RollupCount> {
  const daily = new Map<string, RollupCount>();
  for (const c of hourly.values()) addCount(daily, { ...c, at: dayOf(c.at) });
  return daily;
}

/** The counts sorted by key, so concurrent upserts lock rows in one order. */
export function sortedCounts(counts: Map<string, RollupCount>): RollupCount[] {
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}

/**
 * A request's events in the form a commit sends them (PostgresInsightsStore): the rows as the
 * elements of a JSON array (without its brackets, so requests' parts join with commas), their
 * hourly counts and the months they fall in. Built as the request arrives, so what waits for a
 * commit holds no parsed event.
 */
export interface PreparedEvents {
  json: string;
  count: number;
  hourly: Map<string, RollupCount>;
  /** The starts of the months the events fall in (ms). */
  months: number[];
}

export function prepareEvents(rows: InsightsRow[]): PreparedEvents {
  const hourly = new Map<string, RollupCount>();
  countHourly(hourly, rows);
  const months = new Set<number>();
  for (const r of rows) months.add(monthOf(r.occurredAt).from.getTime());
  return { json: JSON.stringify(rows).slice(1, -1), count: rows.length, hourly, months: [...months] };
}

/** Adds counts to others (new entries are copies: the counts added are left as they are). */
export function addCounts(into: Map<string, RollupCount>, counts: Map<string, RollupCount>): void {
  for (const [key, c] of counts) {
    const found = into.get(key);
    if (found) found.events += c.events;
    else into.set(key, { ...c });
  }
}
