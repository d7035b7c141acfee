import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Site insights (Migration0034SiteInsights); read and written in src/db/insights.ts only. */

/** One tracked event of a published site (monthly partitions of `occurred_at`). Never updated. */
export const SiteInsightsEvent = defineEntity({
  name: 'SiteInsightsEvent',
  tableName: 'site_insights_event',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.string(),
    siteId: p.string(),
    occurredAt: p.datetime().primary(),
    eventType: p.string(),
    visitorId: p.string(),
    sessionId: p.string(),
    url: p.string(),
    urlPath: p.string(),
    displayContext: p.string(),
    siteSection: p.string().nullable(),
    siteSpace: p.string().nullable(),
    siteShareKey: p.string().nullable(),
    space: p.string().nullable(),
    revision: p.string().nullable(),
    page: p.string().nullable(),
    pageNotFoundType: p.string().nullable(),
    /** ISO 3166 alpha-2 code from the renderer's `x-location-country` header. */
    country: p.string().nullable(),
    /** Rounded to 0.1° (about 11 km). */
    latitude: p.float().nullable(),
    longitude: p.float().nullable(),
    language: p.string().nullable(),
    browser: p.string(),
    device: p.string(),
    os: p.string(),
    bot: p.string().nullable(),
    referrer: p.string().nullable(),
    referrerDomain: p.string().nullable(),
    utmSource: p.string().nullable(),
    utmMedium: p.string().nullable(),
    utmCampaign: p.string().nullable(),
    utmTerm: p.string().nullable(),
    utmContent: p.string().nullable(),
    visitorAuthenticated: p.boolean(),
    claims: p.json<Record<string, unknown>>().nullable(),
    searchQuery: p.string().nullable(),
    searchResultRecordId: p.string().nullable(),
    feedbackRating: p.string().nullable(),
    feedbackComment: p.string().nullable(),
    askRating: p.integer().nullable(),
    linkTargetKind: p.string().nullable(),
    linkTargetValue: p.json<Record<string, unknown>>().nullable(),
    linkTargetDomain: p.string().nullable(),
    linkPosition: p.string().nullable(),
    apiPath: p.string().nullable(),
    apiMethod: p.string().nullable(),
    llmsVariant: p.string().nullable(),
    markdownSource: p.string().nullable(),
    adDomain: p.string().nullable(),
    adPlacement: p.string().nullable(),
    trademarkPlacement: p.string().nullable(),
    /** What else the event said (an ask goal, an operation, an ad zone), as sent. */
    detail: p.json<Record<string, unknown>>().nullable(),
  },
});
export type SiteInsightsEvent = InferEntity<typeof SiteInsightsEvent>;

/** Events per site, hour, type, URL path and search query ('' when none). */
export const SiteInsightsHourly = defineEntity({
  name: 'SiteInsightsHourly',
  tableName: 'site_insights_hourly',
  properties: {
    siteId: p.string().primary(),
    hour: p.datetime().primary(),
    eventType: p.string().primary(),
    urlPath: p.string().primary(),
    searchQuery: p.string().primary(),
    events: p.bigint('string'),
  },
});
export type SiteInsightsHourly = InferEntity<typeof SiteInsightsHourly>;

/** Events per site, day (UTC), type, URL path and search query ('' when none). */
export const SiteInsightsDaily = defineEntity({
  name: 'SiteInsightsDaily',
  tableName: 'site_insights_daily',
  properties: {
    siteId: p.string().primary(),
    day: p.datetime().primary(),
    eventType: p.string().primary(),
    urlPath: p.string().primary(),
    searchQuery: p.string().primary(),
    events: p.bigint('string'),
  },
});
export type SiteInsightsDaily = InferEntity<typeof SiteInsightsDaily>;

/** Feedback an AI agent submitted about a site or what it exposes. */
export const SiteAgentFeedback = defineEntity({
  name: 'SiteAgentFeedback',
  tableName: 'site_agent_feedback',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    siteId: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
    source: p.string().nullable(),
    subject: p.json<Record<string, unknown>>(),
    feedback: p.json<Record<string, unknown>>(),
    reportedBy: p.json<Record<string, unknown>>().nullable(),
  },
});
export type SiteAgentFeedback = InferEntity<typeof SiteAgentFeedback>;

export const entities = [SiteInsightsEvent, SiteInsightsHourly, SiteInsightsDaily, SiteAgentFeedback];
