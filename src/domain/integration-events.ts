/**
 * Events delivered to integrations: what an event's payload holds, what an answer of the
 * integration's script means for its delivery, and how much of its console output is kept.
 * Delivery itself is the `integration-events` job (src/workflows/integration-events.ts).
 */

/** The event types this service raises for installations (a part of GitBook's `Event` union). */
export const RAISED_EVENT_TYPES = [
  'installation_setup',
  'installation_deleted',
  'space_installation_setup',
  'site_installation_setup',
  'space_installation_deleted',
  'site_installation_deleted',
  'space_content_updated',
  'space_gitsync_started',
  'space_gitsync_completed',
  'space_visibility_updated',
  'site_view',
  'page_feedback',
] as const;
export type RaisedEventType = (typeof RAISED_EVENT_TYPES)[number];

/**
 * The payload an integration receives (GitBook's `Event`): the common fields (`eventId`, `type`,
 * `installationId`) first, then the type's own; the common fields win over the same names in `fields`.
 */
export function eventPayload(
  type: RaisedEventType,
  eventId: string,
  installationId: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  return { ...fields, eventId, type, installationId };
}

/**
 * What one delivery attempt settles: a 2xx answer delivered the event; any other answer from the
 * script is its own verdict on the event (GitBook's runtime answers 4xx for events it does not
 * handle and for errors it raised on purpose) and failed it, except a 5xx, 408 and 429, which are
 * tried again; an attempt stopped by the sandbox (its deadline, its memory limit, a crash) is tried
 * again too, up to the job's attempts. A script that cannot start fails at once.
 */
export function deliveryVerdict(answer: { status: number } | { sandboxError: string }): 'success' | 'failed' | 'retry' {
  if ('sandboxError' in answer) return answer.sandboxError === 'START_FAILED' ? 'failed' : 'retry';
  const { status } = answer;
  if (status >= 200 && status < 300) return 'success';
  if (status >= 500 || status === 408 || status === 429) return 'retry';
  return 'failed';
}

/** A line an event's script wrote, as `getIntegrationEvent`'s trace answers it (GitBook's `IntegrationEventLog`). */
export interface EventLogLine {
  message: string;
  timestamp: string;
  level: 'debug' | 'info' | 'warn' | 'error';
}

/** Lines kept of one event's console output, and characters kept of one line. */
export const MAX_EVENT_LOG_LINES = 100;
export const MAX_EVENT_LOG_LINE_CHARS = 2000;

/**
 * The lines kept of an event's console output: the last MAX_EVENT_LOG_LINES (what led to the
 * outcome), each cut to MAX_EVENT_LOG_LINE_CHARS; standard error is logged as `error`.
 */
export function eventLog(lines: readonly { stream: 'stdout' | 'stderr'; text: string; at: Date }[]): EventLogLine[] {
  return lines.slice(-MAX_EVENT_LOG_LINES).map((line) => ({
    message: line.text.length > MAX_EVENT_LOG_LINE_CHARS ? `${line.text.slice(0, MAX_EVENT_LOG_LINE_CHARS)}…` : line.text,
    timestamp: line.at.toISOString(),
    level: line.stream === 'stderr' ? 'error' : 'info',
  }));
}

/** The error an attempt leaves on its event: its status and the start of the answer's body, or the sandbox's message. */
export function deliveryError(answer: { status: number; body: string } | { sandboxError: string; message: string }): string {
  if ('sandboxError' in answer) return `${answer.sandboxError}: ${answer.message}`.slice(0, 1000);
  const body = answer.body.trim().slice(0, 500);
  return `The integration answered ${answer.status}${body ? `: ${body}` : ''}`;
}

/**
 * The scope an integration needs to receive events of a type about a space or site its installation
 * is enabled on; setup events go to the installation set up, whatever its scopes.
 */
const EVENT_SCOPES: Record<Exclude<RaisedEventType, `${string}installation_${'setup' | 'deleted'}`>, string> = {
  space_content_updated: 'space:content:read',
  space_gitsync_started: 'space:git:sync',
  space_gitsync_completed: 'space:git:sync',
  space_visibility_updated: 'space:metadata:read',
  site_view: 'site:views:read',
  page_feedback: 'page:feedback:read',
};

/** The scopes that receive the events a site's readers raise (`site_view`, `page_feedback`). */
export const READER_EVENT_SCOPES = [EVENT_SCOPES.site_view, EVENT_SCOPES.page_feedback];

/** What a site's reader did, as the renderer reports it to insights (the parts integrations' events carry). */
export interface ReaderEvent {
  type: string;
  session: { visitorId: string; userAgent: string; language?: string | null; referrer?: string | null };
  location: { url: string; siteSpace?: string | null; space?: string | null; page?: string | null };
  feedback?: { rating: string; comment?: string };
}

/**
 * The integration events a batch of a site's insights events raises: a page view is GitBook's
 * `site_view`, a page rating (with or without its comment) its `page_feedback`, in the batch's
 * order. The visitor is who the renderer says (its anonymous id, user agent and language);
 * cookies and IP addresses are never kept by this service, so they are given empty.
 */
export function readerEventsForIntegrations(
  siteId: string,
  events: readonly ReaderEvent[],
): { type: Extract<RaisedEventType, 'site_view' | 'page_feedback'>; fields: Record<string, unknown> }[] {
  const raised: { type: 'site_view' | 'page_feedback'; fields: Record<string, unknown> }[] = [];
  for (const event of events) {
    const type = event.type === 'page_view' ? 'site_view' : /^page_post_feedback(_comment)?$/.test(event.type) ? 'page_feedback' : null;
    if (!type) continue;
    const { session, location } = event;
    const visitor = {
      anonymousId: session.visitorId,
      cookies: {},
      userAgent: session.userAgent,
      ip: '',
      ...(session.language ? { language: session.language } : {}),
    };
    const fields: Record<string, unknown> = {
      siteId,
      ...(location.space ? { spaceId: location.space } : {}),
      ...(location.page ? { pageId: location.page } : {}),
      visitor,
      url: location.url,
      referrer: session.referrer ?? '',
    };
    if (type === 'site_view' && location.siteSpace) fields.siteSpaceId = location.siteSpace;
    if (type === 'page_feedback' && event.feedback)
      fields.feedback = { rating: event.feedback.rating, ...(event.feedback.comment ? { comment: event.feedback.comment } : {}) };
    raised.push({ type, fields });
  }
  return raised;
}

/** Whether an integration with `scopes` receives content events of `type` (setup and deleted events of its installations: always). */
export function receivesEvent(type: RaisedEventType, scopes: readonly string[]): boolean {
  switch (type) {
    case 'installation_setup':
    case 'installation_deleted':
    case 'space_installation_setup':
    case 'site_installation_setup':
    case 'space_installation_deleted':
    case 'site_installation_deleted':
      return true;
    default:
      return scopes.includes(EVENT_SCOPES[type]);
  }
}
