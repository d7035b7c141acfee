import type { Static } from 'typebox';
import { insightsStore, type InsightsRow, type SiteTracking } from '../../../db/insights.ts';
import { raiseSiteReaderEvents, readerEventReceivers, type RaisedFor } from '../../../db/integration-events.ts';
import { siteById } from '../../../db/sites.ts';
import { withoutCountingWrites } from '../../../db/write-count.ts';
import { readerEventsForIntegrations } from '../../../domain/integration-events.ts';
import {
  coordinateOf,
  countryOf,
  inWindow,
  linkTarget,
  locationParts,
  type LocationParts,
  MAX_CLAIMS_CHARS,
  parseUserAgent,
  type UserAgent,
  urlDomain,
  visitorAuthenticated,
} from '../../../domain/sites/insights.ts';
import { planAggregation, QueryError } from '../../../domain/sites/insights-query.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, notFound } from '../../errors.ts';
import { announce } from '../../integrations/service.ts';
import { requireSite } from '../site-access.ts';
import { presentAggregation, presentSegment } from './present.ts';
import type { AgentFeedbackInput, AggregateBody, LegacyAgentFeedback, SiteInsightsEvent, TrackEventsBody } from './schemas.ts';

/**
 * Site insights: the renderer's events in, aggregations and visitor segments out, agents' feedback.
 *
 * Who may do what: events and agent feedback come from the organization's site lookup tokens (the
 * renderer's server) or members who can read the site; aggregations and segments are for members
 * who manage the site (admin). Anyone else gets 404 (another organization) or 403.
 */

const MANAGE = 'admin';
/** Visitor segments cover the last 30 days, the 100 largest. */
const SEGMENTS_DAYS = 30;
const SEGMENTS_LIMIT = 100;

const store = (ctx: Ctx) => insightsStore(ctx.deps.orm, ctx.deps.config.insightsRetentionMs);

/** The site's tracking facts, kept between writes by organization and site (AppDeps.siteTracking); a site not found is never kept. */
async function siteTracking(ctx: Ctx, organizationId: string, siteId: string): Promise<SiteTracking | undefined> {
  const kept = ctx.deps.siteTracking;
  const key = `${organizationId}\n${siteId}`;
  const found = await kept.current(key, ctx.caughtUp);
  if (found) return found;
  const ticket = kept.ticket();
  const site = await siteById(ctx.em, organizationId, siteId);
  if (!site) return undefined;
  const tracking = { id: site.id, visibility: site.visibility, receivers: await readerEventReceivers(ctx.em, site.id) };
  kept.set(key, ticket, tracking);
  return tracking;
}

/** The site, for a caller that may send it events: a lookup token of its organization, or a member who reads it. */
async function trackingSite(ctx: Ctx, organizationId: string, siteId: string): Promise<SiteTracking> {
  const lookup = ctx.caller.siteLookup;
  if (lookup) {
    if (lookup.organizationId !== organizationId) throw notFound('Site');
  } else {
    await requireSite(ctx, organizationId, siteId, 'read', 'send insights of this site');
  }
  const tracking = await siteTracking(ctx, organizationId, siteId);
  if (!tracking) throw notFound('Site');
  return tracking;
}

export interface LocationHeaders {
  country?: string;
  latitude?: string;
  longitude?: string;
}

type Event = Static<typeof SiteInsightsEvent>;

/**
 * Stores a batch of events, all or none: every event is checked first (its timestamp within 5
 * minutes of now, its claims bounded), then the batch joins the process's next group commit, and
 * the call returns once that commit is durable.
 */
export async function trackEvents(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  body: Static<typeof TrackEventsBody>,
  headers: LocationHeaders,
): Promise<void> {
  const site = await trackingSite(ctx, organizationId, siteId);
  const now = Date.now();
  const country = countryOf(headers.country);
  const latitude = coordinateOf(headers.latitude, 90);
  const longitude = coordinateOf(headers.longitude, 180);
  // A batch's events mostly share their visitor's user agent and often their page: each read once.
  const parsed = { agents: new Map<string, UserAgent>(), locations: new Map<string, LocationParts>() };
  const rows = body.events.map((event, i) => {
    const at = event.timestamp === undefined ? now : Date.parse(event.timestamp);
    if (!inWindow(at, now)) throw badRequest(`events[${i}].timestamp: must be within 5 minutes of the current time`);
    const claims = event.session.visitorAuthClaims ?? null;
    if (claims && JSON.stringify(claims).length > MAX_CLAIMS_CHARS)
      throw badRequest(`events[${i}].session.visitorAuthClaims: at most ${MAX_CLAIMS_CHARS} characters of JSON`);
    return toRow(event, {
      organizationId,
      siteId: site.id,
      at: new Date(at),
      country,
      latitude,
      longitude,
      visibility: site.visibility,
      claims,
      parsed,
    });
  });
  const readerEvents = site.receivers.length > 0 ? readerEventsForIntegrations(site.id, body.events) : [];
  const stored = store(ctx).append(rows);
  // The parsed events are let go while the commit is awaited (the request keeps its body until it
  // is answered): waiting, they would outlive young collections and be copied to the old generation.
  body.events.length = 0;
  await stored;
  await raiseReaderEvents(ctx, site, readerEvents);
}

/**
 * Page views and page ratings, once stored, reach the integrations installed on the site that may
 * read them (GitBook's `site_view` and `page_feedback`, durable `integration-events` deliveries).
 * No kept answer reads integration events, so these writes are not counted as writes (as the
 * insights' own are not), and a failure to raise them is logged rather than failing the batch the
 * renderer sent, which is stored already.
 */
async function raiseReaderEvents(
  ctx: Ctx,
  site: SiteTracking,
  readerEvents: ReturnType<typeof readerEventsForIntegrations>,
): Promise<void> {
  if (readerEvents.length === 0) return;
  let raised: RaisedFor[];
  try {
    raised = await withoutCountingWrites(() => raiseSiteReaderEvents(ctx.em, site.receivers, readerEvents));
  } catch (error) {
    ctx.log.warn({ siteId: site.id, err: error }, 'the integration events of readers could not be raised');
    return;
  }
  await announce(ctx, raised);
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

/** An aggregation over the site's events (GitBook's query language, domain/sites/insights-query.ts). */
export async function aggregateEvents(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof AggregateBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, MANAGE, 'read the insights of this site');
  const now = new Date();
  let plan;
  try {
    plan = planAggregation(body, now, new Date(now.getTime() - ctx.deps.config.insightsRetentionMs));
  } catch (error) {
    if (error instanceof QueryError) throw badRequest(error.message);
    throw error;
  }
  const rows = await store(ctx).aggregate(ctx.em, site.id, plan);
  return presentAggregation(plan.output, rows);
}

/** The site's visitors over the last 30 days, by the claims they share, the largest segments first. */
export async function listVisitorSegments(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, MANAGE, 'read the insights of this site');
  const to = new Date();
  const from = new Date(Math.max(to.getTime() - SEGMENTS_DAYS * 86_400_000, to.getTime() - ctx.deps.config.insightsRetentionMs));
  const rows = await store(ctx).segments(ctx.em, site.id, from, to, SEGMENTS_LIMIT);
  return { items: rows.map(presentSegment), count: rows.length };
}

/** Feedback an agent submits about what the site exposes (GitBook's AgentFeedbackInput). */
export async function submitAgentFeedback(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof AgentFeedbackInput>) {
  const site = await trackingSite(ctx, organizationId, siteId);
  const id = await store(ctx).addAgentFeedback(ctx.em, {
    organizationId,
    siteId: site.id,
    source: null,
    subject: body.subject,
    feedback: body.feedback,
    reportedBy: body.reportedBy ?? null,
  });
  return { id, result: 'Thank you: the feedback was recorded and will be reviewed by the maintainers of this site.' };
}

/** The deprecated form: feedback about the site's content, recorded as a `documentation` subject. */
export async function submitLegacyAgentFeedback(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  body: Static<typeof LegacyAgentFeedback>,
) {
  const site = await trackingSite(ctx, organizationId, siteId);
  await store(ctx).addAgentFeedback(ctx.em, {
    organizationId,
    siteId: site.id,
    source: body.source ?? null,
    subject: { kind: 'documentation', url: body.url, spaceId: body.spaceId, pageId: body.pageId },
    feedback: {
      category: 'documentation',
      summary: body.feedback.slice(0, 256),
      detail: body.feedback,
      ...(body.goal ? { goal: body.goal } : {}),
    },
    reportedBy: null,
  });
}
