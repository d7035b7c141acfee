/**
 * Events delivered to integrations: what an event's payload holds, what an answer of the
 * integration's script means for its delivery, and how much of its console output is kept.
 * Delivery itself is the `integration-events` job (src/workflows/integration-events.ts).
 */

/** The event types this service raises for installations (a part of GitBook's `Event` union). */
export const RAISED_EVENT_TYPES = [
  'installation_setup',
  'space_installation_setup',
  'site_installation_setup',
  'space_content_updated',
  'space_gitsync_completed',
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
const EVENT_SCOPES: Record<Exclude<RaisedEventType, `${string}installation_setup`>, string> = {
  space_content_updated: 'space:content:read',
  space_gitsync_completed: 'space:git:sync',
};

/** Whether an integration with `scopes` receives content events of `type` (setup events: always). */
export function receivesEvent(type: RaisedEventType, scopes: readonly string[]): boolean {
  if (type === 'installation_setup' || type === 'space_installation_setup' || type === 'site_installation_setup') return true;
  return scopes.includes(EVENT_SCOPES[type]);
}
