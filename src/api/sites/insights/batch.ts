/**
 * A batch of insights events as the renderer POSTs it, read in a thread of the process's pool
 * (lib/bounded-parse.ts; service.ts `trackEvents` sends it here), never on the event loop that
 * answers readers: the JSON text parsed and held to what every body is (json-body.ts), validated
 * against TrackEventsBody as Fastify validates a body (the same Ajv options, and the same 400
 * messages: errors.ts `validationMessage`), every timestamp within GitBook's window and every
 * claims bounded, then turned into the rows and rollup counts the store commits (PreparedEvents).
 * All or none: the first problem refuses the whole batch.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { Static } from 'typebox';
import { readerEventsForIntegrations } from '../../../domain/integration-events.ts';
import {
  inWindow,
  linkTarget,
  locationParts,
  MAX_CLAIMS_CHARS,
  parseUserAgent,
  prepareEvents,
  urlDomain,
  visitorAuthenticated,
  type InsightsRow,
  type LocationParts,
  type PreparedEvents,
  type UserAgent,
} from '../../../domain/sites/insights.ts';
import { AJV_OPTIONS, bodyProblem } from '../../json-body.ts';
import { TrackEventsBody, type SiteInsightsEvent } from './schemas.ts';

type Event = Static<typeof SiteInsightsEvent>;

/** What the batch is read with: the site's facts, the time it arrived and the renderer's location headers (already read). */
export interface BatchContext {
  organizationId: string;
  siteId: string;
  visibility: string;
  now: number;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  /** Whether the integration events readers raise are wanted (the site has installations that hear them). */
  readerEvents: boolean;
}

export type BatchOutcome =
  | { events: PreparedEvents; readerEvents: ReturnType<typeof readerEventsForIntegrations> }
  /** A 400's message. */
  | { refused: string }
  /** Ajv's errors, for `validationMessage('body', …)`. */
  | { invalid: { instancePath: string; message?: string; params: unknown }[] };

type Validate = ((data: unknown) => data is Static<typeof TrackEventsBody>) & {
  errors?: { instancePath: string; message?: string; params: unknown }[] | null;
};
let validate: Validate | undefined;

/** TrackEventsBody compiled once per thread by Fastify's own compiler, with the options app.ts gives it for bodies. */
function validator(): Validate {
  // Fastify's compiler takes the route's { schema, method, url, httpPart } (the published type says a bare schema).
  const compile = AjvCompiler()({}, { customOptions: { ...AJV_OPTIONS, coerceTypes: false }, plugins: [] }) as unknown as (route: {
    schema: unknown;
    method: string;
    url: string;
    httpPart: string;
  }) => Validate;
  return (validate ??= compile({ schema: TrackEventsBody, method: 'POST', url: '/insights/events', httpPart: 'body' }));
}

export function readBatch(text: string, ctx: BatchContext): BatchOutcome {
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    return { refused: 'The request body is not valid JSON' };
  }
  const problem = bodyProblem(body);
  if (problem) return { refused: problem };
  const check = validator();
  if (!check(body))
    return { invalid: (check.errors ?? []).map(({ instancePath, message, params }) => ({ instancePath, message, params })) };
  const { events } = body;
  // A batch's events mostly share their visitor's user agent and often their page: each read once.
  const parsed = { agents: new Map<string, UserAgent>(), locations: new Map<string, LocationParts>() };
  const rows: InsightsRow[] = [];
  for (const [i, event] of events.entries()) {
    const at = event.timestamp === undefined ? ctx.now : Date.parse(event.timestamp);
    if (!inWindow(at, ctx.now)) return { refused: `events[${i}].timestamp: must be within 5 minutes of the current time` };
    const claims = event.session.visitorAuthClaims ?? null;
    if (claims && JSON.stringify(claims).length > MAX_CLAIMS_CHARS)
      return { refused: `events[${i}].session.visitorAuthClaims: at most ${MAX_CLAIMS_CHARS} characters of JSON` };
    rows.push(toRow(event, { ...ctx, at: new Date(at), claims, parsed }));
  }
  return {
    events: prepareEvents(rows),
    readerEvents: ctx.readerEvents ? readerEventsForIntegrations(ctx.siteId, events) : [],
  };
}

function toRow(
  event: Event,
  ctx: {
    organizationId: string;
    siteId: string;
    at: Date;
    country: string | null;
    latitude: number | null;
    longitude: number | null;
    visibility: string;
    claims: Record<string, unknown> | null;
    parsed: { agents: Map<string, UserAgent>; locations: Map<string, LocationParts> };
  },
): InsightsRow {
  const { session, location } = event;
  const { agents, locations } = ctx.parsed;
  let ua = agents.get(session.userAgent);
  if (!ua) agents.set(session.userAgent, (ua = parseUserAgent(session.userAgent)));
  let parts = locations.get(location.url);
  if (!parts) locations.set(location.url, (parts = locationParts(location.url)));
  const referrer = session.referrer ? session.referrer : null;
  const row: InsightsRow = {
    organizationId: ctx.organizationId,
    siteId: ctx.siteId,
    occurredAt: ctx.at,
    eventType: event.type,
    visitorId: session.visitorId,
    sessionId: session.sessionId,
    url: location.url,
    urlPath: parts.urlPath,
    displayContext: location.displayContext ?? 'site',
    siteSection: location.siteSection,
    siteSpace: location.siteSpace,
    siteShareKey: location.siteShareKey,
    space: location.space,
    revision: location.revision,
    page: location.page,
    pageNotFoundType: null,
    country: ctx.country,
    latitude: ctx.latitude,
    longitude: ctx.longitude,
    language: session.language,
    ...ua,
    referrer,
    referrerDomain: urlDomain(referrer),
    utmSource: parts.utmSource,
    utmMedium: parts.utmMedium,
    utmCampaign: parts.utmCampaign,
    utmTerm: parts.utmTerm,
    utmContent: parts.utmContent,
    visitorAuthenticated: visitorAuthenticated(ctx.visibility, ctx.claims),
    claims: ctx.claims && Object.keys(ctx.claims).length > 0 ? ctx.claims : null,
    searchQuery: null,
    searchResultRecordId: null,
    feedbackRating: null,
    feedbackComment: null,
    askRating: null,
    linkTargetKind: null,
    linkTargetValue: null,
    linkTargetDomain: null,
    linkPosition: null,
    apiPath: null,
    apiMethod: null,
    llmsVariant: null,
    markdownSource: null,
    adDomain: null,
    adPlacement: null,
    trademarkPlacement: null,
    detail: null,
  };
  switch (event.type) {
    case 'page_markdown_request':
      row.markdownSource = event.markdownSource ?? null;
      break;
    case 'search_type_query':
      row.searchQuery = event.query;
      break;
    case 'search_open_result':
      row.searchQuery = event.query;
      if ('recordId' in event.result) row.searchResultRecordId = event.result.recordId;
      else row.detail = { result: event.result };
      break;
    case 'page_post_feedback':
      row.feedbackRating = event.feedback.rating;
      break;
    case 'page_post_feedback_comment':
      row.feedbackRating = event.feedback.rating;
      row.feedbackComment = event.feedback.comment;
      break;
    case 'ask_question':
      row.searchQuery = event.query;
      if (event.goal !== undefined) row.detail = { goal: event.goal };
      break;
    case 'ask_rate_response':
      row.searchQuery = event.query;
      row.askRating = event.rating;
      row.detail = { responseId: event.responseId };
      break;
    case 'link_click': {
      const target = linkTarget(event.link.target);
      row.linkTargetKind = target.kind;
      row.linkTargetDomain = target.domain;
      row.linkTargetValue = event.link.target;
      row.linkPosition = event.link.position;
      break;
    }
    case 'api_client_open':
    case 'api_client_request':
      row.apiPath = event.operation.path;
      row.apiMethod = event.operation.method.toUpperCase();
      break;
    case 'trademark_click':
      row.trademarkPlacement = event.placement;
      break;
    case 'ad_click':
    case 'ad_display':
      row.adDomain = event.ad.domain;
      row.adPlacement = event.ad.placement;
      row.detail = { zoneId: event.ad.zoneId };
      break;
    case 'llms_request':
      row.llmsVariant = event.llmsVariant;
      break;
    default:
      break;
  }
  return row;
}
