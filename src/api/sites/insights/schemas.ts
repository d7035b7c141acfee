import { Type, type TSchema } from 'typebox';
import { Id, Timestamp } from '../../schemas.ts';
import { MAX_EVENTS_PER_BATCH } from '../../../domain/sites/insights.ts';

/**
 * Site insights, written after GitBook's OpenAPI schemas (`SiteInsightsEvent`,
 * `SiteInsightsQueryEventsAggregation` and its result, `SiteInsightsVisitorSegment`,
 * `AgentFeedbackInput`). Where GitBook's schema sets no bound, these set one (lengths, array sizes):
 * the cost of a request stays bounded.
 */

const Str = (maxLength = 1024, options: Record<string, unknown> = {}) => Type.String({ maxLength, ...options });
const NullableStr = (maxLength = 256) => Type.Union([Str(maxLength), Type.Null()]);
const Url = Type.String({ format: 'uri', maxLength: 2048 });
const Enum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );

/** GitBook's PlainObject: nested objects of strings, booleans, numbers and arrays of them. */
const PlainObject = Type.Record(Type.String({ maxLength: 256 }), Type.Unknown());

export const EVENT_TYPES = [
  'page_view',
  'page_markdown_request',
  'search_open',
  'search_type_query',
  'search_open_result',
  'page_post_feedback',
  'page_post_feedback_comment',
  'agent_feedback',
  'ask_question',
  'ask_view',
  'ask_rate_response',
  'link_click',
  'api_client_open',
  'api_client_request',
  'ad_click',
  'ad_display',
  'trademark_click',
  'llms_request',
  'mcp_request',
  'rss_request',
] as const;
export const DISPLAY_CONTEXTS = ['site', 'server', 'embed', 'mcp'] as const;
export const PAGE_FEEDBACK_RATINGS = ['bad', 'ok', 'good'] as const;
export const LINK_POSITIONS = ['announcement', 'header', 'footer', 'sidebar', 'content'] as const;
export const TRADEMARK_PLACEMENTS = ['sidebar', 'ad', 'footer', 'pdf', 'embed'] as const;
export const LLMS_VARIANTS = ['standard', 'full'] as const;
export const BROWSERS = ['chrome', 'firefox', 'safari', 'edge', 'ie', 'opera', 'unknown'] as const;
export const DEVICES = ['desktop', 'tablet', 'mobile', 'unknown'] as const;
export const OSES = ['windows', 'macos', 'linux', 'android', 'ios', 'unknown'] as const;
export const BOTS = [
  'unknown', 'googlebot', 'bingbot', 'duckduckbot', 'facebookbot', 'applebot', 'chatgpt', 'openai', 'claude', 'anthropic', 'gemini',
  'perplexity', 'cohere', 'mistral', 'deepseek', 'meta', 'bytespider', 'ccbot', 'amazonbot', 'youbot', 'cursor', 'vscode', 'claude-code',
  'codex', 'opencode', 'gptbot', 'claudebot', 'meta-fetcher', 'grok', 'github-copilot', 'meta-webindexer', 'meta-ads', 'duckassist',
  'amzn-searchbot', 'amzn-user',
] as const; // prettier-ignore
export const LINK_KINDS = ['url', 'page', 'file', 'anchor', 'space', 'collection', 'user', 'reusable-content'] as const;

/** GitBook's ContentRef (what a tracked link points at). */
export const ContentRef = Type.Union([
  Type.Object({ kind: Type.Literal('file'), file: Str(), space: Type.Optional(Str()) }),
  Type.Object({ kind: Type.Literal('url'), url: Str(2048) }),
  Type.Object({ kind: Type.Literal('page'), page: Str(), space: Type.Optional(Str()) }),
  Type.Object({ kind: Type.Literal('anchor'), anchor: Str(), space: Type.Optional(Str()), page: Type.Optional(Str()) }),
  Type.Object({ kind: Type.Literal('user'), user: Str() }),
  Type.Object({ kind: Type.Literal('collection'), collection: Str() }),
  Type.Object({ kind: Type.Literal('space'), space: Str() }),
  Type.Object({ kind: Type.Literal('reusable-content'), reusableContent: Str(), space: Type.Optional(Str()) }),
  Type.Object({ kind: Type.Literal('tag'), tag: Str(), space: Type.Optional(Str()) }),
  Type.Object({ kind: Type.Literal('openapi'), spec: Str() }),
]);

const Session = Type.Object({
  visitorId: Str(256),
  sessionId: Str(256),
  cookies: Type.Record(Type.String({ maxLength: 256 }), Str(4096)),
  ip: Type.Optional(Str(256, { description: 'Used for nothing and never stored' })),
  userAgent: Str(2048),
  language: NullableStr(64),
  referrer: Type.Union([Type.Null(), Type.Literal(''), Url]),
  visitorAuthToken: Type.Optional(Type.Union([Str(8192), Type.Null()])),
  visitorAuthClaims: Type.Optional(PlainObject),
});

const Location = Type.Object({
  url: Url,
  displayContext: Type.Optional(Enum(DISPLAY_CONTEXTS)),
  siteSection: NullableStr(),
  siteSpace: NullableStr(),
  siteShareKey: NullableStr(),
  space: NullableStr(),
  revision: NullableStr(),
  page: NullableStr(),
});

const base = {
  session: Session,
  location: Location,
  timestamp: Type.Optional(Type.String({ format: 'date-time', description: 'Within 5 minutes of the time the event is received' })),
};

/** An event of one type; `type` comes first, so a batch's events are told apart by it before the rest is checked. */
const event = <T extends string, P extends Record<string, TSchema>>(type: T, extra: P) =>
  Type.Object({ type: Type.Literal(type), ...base, ...extra });
const Operation = Type.Object({ path: Str(2048), method: Str(16) });
const Ad = Type.Object({ domain: Str(256), zoneId: Str(256), placement: Type.Literal('aside') });

export const SiteInsightsEvent = Type.Union([
  event('page_view', {}),
  event('page_markdown_request', { markdownSource: Type.Optional(Type.Literal('page-action')) }),
  event('search_open', {}),
  event('search_type_query', { query: Str(512) }),
  event('search_open_result', {
    query: Str(512),
    result: Type.Union([Type.Object({ spaceId: Str(256), pageId: Str(256) }), Type.Object({ recordId: Str(256) })]),
  }),
  event('page_post_feedback', { feedback: Type.Object({ rating: Enum(PAGE_FEEDBACK_RATINGS) }) }),
  event('page_post_feedback_comment', {
    feedback: Type.Object({ rating: Enum(PAGE_FEEDBACK_RATINGS), comment: Type.String({ minLength: 1, maxLength: 512 }) }),
  }),
  event('agent_feedback', {}),
  event('ask_question', { query: Str(2048), goal: Type.Optional(Str(1024)) }),
  event('ask_view', {}),
  event('ask_rate_response', { query: Str(2048), rating: Type.Union([Type.Literal(1), Type.Literal(-1)]), responseId: Str(256) }),
  event('link_click', { link: Type.Object({ target: ContentRef, position: Enum(LINK_POSITIONS) }) }),
  event('api_client_open', { operation: Operation }),
  event('api_client_request', { operation: Operation }),
  event('trademark_click', { placement: Enum(TRADEMARK_PLACEMENTS) }),
  event('ad_click', { ad: Ad }),
  event('ad_display', { ad: Ad }),
  event('llms_request', { llmsVariant: Enum(LLMS_VARIANTS) }),
  event('mcp_request', {}),
  event('rss_request', {}),
]);

export const TrackEventsBody = Type.Object({
  events: Type.Array(SiteInsightsEvent, { maxItems: MAX_EVENTS_PER_BATCH }),
});

// --- Aggregation ------------------------------------------------------------------------------------

/** Columns that take no option, in GitBook's order (SiteInsightsQueryEventsColumn). */
export const PLAIN_COLUMNS = [
  'dayOfWeek', 'hourOfDay', 'url', 'urlPath', 'eventType', 'eventsCount', 'sessionsCount', 'visitorsCount', 'siteSection', 'siteSpace',
  'siteShareKey', 'displayContext', 'page', 'visitorGeoCountry', 'visitorDevice', 'visitorBrowser', 'visitorOS', 'visitorBot',
  'visitorLanguage', 'eventLinkTargetValue', 'eventLinkTargetKind', 'eventLinkTargetDomain', 'eventLinkPosition', 'eventAPIOperationPath',
  'eventAPIOperationMethod', 'eventLLMSVariant', 'eventPageNotFoundType', 'eventMarkdownSource', 'eventSearchQuery',
  'eventSearchResultRecordId', 'eventPageFeedbackRating', 'eventPageFeedbackComment', 'eventAskResponseRating', 'pageFeedbackRating',
  'askResponseRating', 'referrer', 'referrerDomain', 'utmSource', 'utmMedium', 'utmCampaign', 'utmTerm', 'utmContent',
  'visitorAuthenticated', 'visitorClaimProperty', 'eventAdDomain', 'eventAdPlacement', 'eventTrademarkPlacement',
] as const; // prettier-ignore

export const Column = Type.Union([
  Type.Object({ column: Type.Literal('datetime'), interval: Type.Optional(Enum(['hour', 'day', 'week', 'month'] as const)) }),
  Type.Object({ column: Enum(PLAIN_COLUMNS) }),
  Type.Object({ column: Type.Literal('visitorGeoPoint'), precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 15 })) }),
  Type.Object({ column: Type.Literal('visitorClaim'), claim: Str(256) }),
]);

/** Values a filter compares with; each column's own are checked by the query translation. */
const FilterValue = Type.Union([Type.String({ maxLength: 2048 }), Type.Number(), Type.Boolean(), Type.Null(), PlainObject]);
export const Filter = Type.Object({
  column: Type.Union([Type.Literal('datetime'), Type.Literal('visitorGeoPoint'), Type.Literal('visitorClaim'), Enum(PLAIN_COLUMNS)]),
  claim: Type.Optional(Str(256)),
  values: Type.Array(FilterValue, { maxItems: 100 }),
  operator: Type.Optional(Enum(['in', 'notIn', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'] as const)),
});

export const RANGE_PRESETS = ['lastYear', 'last3Months', 'last30Days', 'last7Days', 'last24Hours'] as const;

export const AggregateBody = Type.Object({
  select: Type.Optional(Type.Array(Column, { maxItems: 20 })),
  where: Type.Optional(Type.Array(Filter, { maxItems: 20 })),
  groupBy: Type.Optional(Type.Array(Column, { maxItems: 8 })),
  order: Type.Optional(Type.Object({ by: Column, direction: Enum(['asc', 'desc'] as const) })),
  range: Type.Union([Enum(RANGE_PRESETS), Type.Object({ from: Timestamp, to: Timestamp })]),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000 })),
});

export const AggregateResult = Type.Object({
  columns: Type.Array(
    Type.Object(
      { column: Type.String(), claim: Type.Optional(Type.String()), values: Type.Array(Type.Unknown()) },
      { additionalProperties: false },
    ),
  ),
});

// --- Visitor segments and agent feedback ------------------------------------------------------------

export const VisitorSegment = Type.Object({
  title: Type.String(),
  claims: PlainObject,
  events: Type.Number(),
  visitors: Type.Number(),
  sessions: Type.Number(),
});
export const VisitorSegments = Type.Object({ items: Type.Array(VisitorSegment), count: Type.Integer() });

const AgentGoal = Str(1024);
export const AgentFeedbackInput = Type.Object(
  {
    reportedBy: Type.Optional(
      Type.Object(
        {
          model: Type.Optional(Str(100)),
          userAgent: Type.Optional(Str(512)),
          correlationId: Type.Optional(Str(100)),
          onDemand: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    subject: Type.Union([
      Type.Object({ kind: Type.Literal('mcp-tool'), toolName: Str(200), target: Type.Optional(Str(200)) }, { additionalProperties: false }),
      Type.Object(
        { kind: Type.Literal('cli-command'), command: Str(200), flags: Type.Optional(Type.Array(Str(100), { maxItems: 50 })) },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          kind: Type.Literal('api-endpoint'),
          method: Enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const),
          path: Str(500),
        },
        { additionalProperties: false },
      ),
      Type.Object({ kind: Type.Literal('documentation'), url: Url }, { additionalProperties: false }),
      Type.Object({ kind: Type.Literal('generic') }, { additionalProperties: false }),
    ]),
    feedback: Type.Object(
      {
        category: Enum(['usability', 'reliability', 'documentation', 'efficiency', 'interoperability', 'could-not-accomplish'] as const),
        severity: Type.Optional(Enum(['low', 'medium', 'high'] as const)),
        goal: Type.Optional(AgentGoal),
        summary: Type.String({ minLength: 1, maxLength: 256 }),
        detail: Type.Optional(Str(4096)),
        workaround: Type.Optional(Str(2048)),
        metrics: Type.Optional(
          Type.Object(
            {
              callCount: Type.Optional(Type.Integer({ minimum: 0 })),
              successCount: Type.Optional(Type.Integer({ minimum: 0 })),
              retryCount: Type.Optional(Type.Integer({ minimum: 0 })),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export const AgentFeedbackAnswer = Type.Object({ id: Type.String(), result: Type.String() });

export const LegacyAgentFeedback = Type.Object({
  feedback: Type.String({ minLength: 1, maxLength: 2048 }),
  goal: Type.Optional(AgentGoal),
  url: Url,
  spaceId: Id,
  pageId: Id,
  source: Type.Optional(Enum(['mcp', 'assistant'] as const)),
});

/** The location headers GitBook's renderer forwards with events (what its host tells it of the visitor). */
export const TrackEventsHeaders = Type.Object({
  'x-location-country': Type.Optional(Type.String()),
  'x-location-latitude': Type.Optional(Type.String()),
  'x-location-longitude': Type.Optional(Type.String()),
});
