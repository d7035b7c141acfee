import type { Static } from 'typebox';
import { insightsStore, type SiteTracking } from '../../../db/insights.ts';
import { raiseSiteReaderEvents, readerEventReceivers, type RaisedFor } from '../../../db/integration-events.ts';
import { siteById } from '../../../db/sites.ts';
import { withoutCountingWrites } from '../../../db/write-count.ts';
import type { readerEventsForIntegrations } from '../../../domain/integration-events.ts';
import { coordinateOf, countryOf } from '../../../domain/sites/insights.ts';
import { planAggregation, QueryError } from '../../../domain/sites/insights-query.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, notFound, unavailable, validationMessage } from '../../errors.ts';
import { BoundedParseError, boundedTask, runBounded } from '../../../lib/bounded-parse.ts';
import { announce } from '../../integrations/service.ts';
import { requireSite } from '../site-access.ts';
import { presentAggregation, presentSegment } from './present.ts';
import type { BatchOutcome, readBatch } from './batch.ts';
import type { AgentFeedbackInput, AggregateBody, LegacyAgentFeedback } from './schemas.ts';

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

const READ_BATCH = boundedTask<typeof readBatch>(new URL('./batch.ts', import.meta.url), 'readBatch');
/** A batch of 100 events is read in a few milliseconds; the bounds are those of a reader's document conversion (the same threads). */
const BATCH_BOUNDS = { timeoutMs: 5_000, maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };

/**
 * Stores a batch of events (`text`, the request's JSON body), all or none. The batch is read in the
 * process's pool of threads (batch.ts: parsed, validated against TrackEventsBody, every timestamp
 * within 5 minutes of now and every claims bounded, turned into rows and rollup counts), never on
 * the event loop that answers readers; then it joins the process's next group commit, and the call
 * returns once that commit is durable.
 */
export async function trackEvents(ctx: Ctx, organizationId: string, siteId: string, text: string, headers: LocationHeaders): Promise<void> {
  const site = await trackingSite(ctx, organizationId, siteId);
  let outcome: BatchOutcome;
  try {
    outcome = await runBounded(
      READ_BATCH,
      [
        text,
        {
          organizationId,
          siteId: site.id,
          visibility: site.visibility,
          now: Date.now(),
          country: countryOf(headers.country),
          latitude: coordinateOf(headers.latitude, 90),
          longitude: coordinateOf(headers.longitude, 180),
          readerEvents: site.receivers.length > 0,
        },
      ],
      { ...BATCH_BOUNDS, lane: 'interactive' },
    );
  } catch (error) {
    if (error instanceof BoundedParseError && error.reason === 'busy')
      throw unavailable('Too many events are being read; try again shortly');
    throw error;
  }
  if ('refused' in outcome) throw badRequest(outcome.refused);
  if ('invalid' in outcome) throw badRequest(validationMessage('body', outcome.invalid));
  await store(ctx).appendPrepared(outcome.events);
  await raiseReaderEvents(ctx, site, outcome.readerEvents);
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
