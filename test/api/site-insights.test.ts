import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { sql } from 'kysely';
import {
  aggregationQuery,
  COMMIT_AT_ROWS,
  ensurePartition,
  expireInsights,
  inAggregation,
  insightsStore,
  type InsightsRow,
} from '../../src/db/insights.ts';
import { planAggregation } from '../../src/domain/sites/insights-query.ts';
import { monthOf } from '../../src/domain/sites/insights.ts';
import { db } from '../../src/db/kysely.ts';
import { writesSeen } from '../../src/domain/read-cache.ts';
import { createTestOrg, client, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Site insights: the renderer's events in (every event type of GitBook's schema), the query
 * language out (checked against counts computed here), visitor segments, agent feedback, who may
 * do what, and what is never stored (visitors' IP addresses) or kept (a deleted site's events).
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let lookup: ReturnType<typeof client>;
let lookupToken: string;
let otherLookup: ReturnType<typeof client>;
let siteId: string;

const base = () => `/v1/orgs/${org.id}/sites/${siteId}/insights`;

function event(
  type: string,
  extra: Record<string, unknown> = {},
  over: { path?: string; visitor?: string; referrer?: string | null; claims?: Record<string, unknown>; at?: string } = {},
) {
  return {
    type,
    session: {
      visitorId: over.visitor ?? 'visitor-1',
      sessionId: `session-${over.visitor ?? 'visitor-1'}`,
      cookies: {},
      ip: '203.0.113.77',
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
      language: 'en-GB',
      referrer: over.referrer === undefined ? null : over.referrer,
      ...(over.claims ? { visitorAuthClaims: over.claims } : {}),
    },
    location: {
      url: `https://docs.example.com${over.path ?? '/guide'}?utm_source=newsletter`,
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: 'space-1',
      revision: 'rev-1',
      page: 'page-1',
    },
    ...(over.at ? { timestamp: over.at } : {}),
    ...extra,
  };
}

/** One event of every type of GitBook's SiteInsightsEvent. */
const EVERY_TYPE = [
  event('page_view'),
  event('page_markdown_request', { markdownSource: 'page-action' }),
  event('search_open'),
  event('search_type_query', { query: 'install' }),
  event('search_open_result', { query: 'install', result: { spaceId: 'space-1', pageId: 'page-1' } }),
  event('page_post_feedback', { feedback: { rating: 'good' } }),
  event('page_post_feedback_comment', { feedback: { rating: 'bad', comment: 'Unclear' } }),
  event('agent_feedback'),
  event('ask_question', { query: 'How do I install?', goal: 'Install the tool' }),
  event('ask_view'),
  event('ask_rate_response', { query: 'How do I install?', rating: 1, responseId: 'r1' }),
  event('link_click', { link: { target: { kind: 'url', url: 'https://github.com/x' }, position: 'content' } }),
  event('api_client_open', { operation: { path: '/pets', method: 'get' } }),
  event('api_client_request', { operation: { path: '/pets', method: 'post' } }),
  event('trademark_click', { placement: 'footer' }),
  event('ad_click', { ad: { domain: 'ads.example', zoneId: 'z', placement: 'aside' } }),
  event('ad_display', { ad: { domain: 'ads.example', zoneId: 'z', placement: 'aside' } }),
  event('llms_request', { llmsVariant: 'full' }),
  event('mcp_request'),
  event('rss_request'),
];

async function stored(site = siteId): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from site_insights_event where site_id = ${site}`.execute(
    db(t.orm.em.fork()),
  );
  return Number(rows[0].n);
}

async function aggregate(body: Record<string, unknown>, as = org.members.admin.api) {
  const res = await as.post(`${base()}/events/aggregate`, body);
  if (res.status !== 200) throw new Error(`aggregate: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { columns: { column: string; values: unknown[] }[] };
}

/** The answer as rows of `{column: value}`. */
const rowsOf = (answer: { columns: { column: string; values: unknown[] }[] }) =>
  (answer.columns[0]?.values ?? []).map((_, i) => Object.fromEntries(answer.columns.map((c) => [c.column, c.values[i]])));

beforeAll(async () => {
  t = await startTestApp();
  [org, other] = await Promise.all([createTestOrg(t, 'Insights'), createTestOrg(t, 'Other insights')]);
  siteId = (await org.members.admin.api.post(`/v1/orgs/${org.id}/sites`, { title: 'Insights site' })).body.id;
  const token = (await org.members.admin.api.post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token;
  lookupToken = token;
  lookup = client(t.app, token);
  const otherToken = (await other.members.admin.api.post(`/v1/orgs/${other.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token;
  otherLookup = client(t.app, otherToken);
});
afterAll(async () => {
  await t?.close();
});

describe('ingestion', () => {
  it('accepts every event type of GitBook schema from a lookup token, and answers each back', async () => {
    const res = await lookup.post(`${base()}/events`, { events: EVERY_TYPE });
    expect(res.status).toBe(204);
    expect(await stored()).toBe(EVERY_TYPE.length);
    const answer = rowsOf(await aggregate({ range: 'last24Hours', groupBy: [{ column: 'eventType' }] }));
    expect(answer.map((r) => r.eventType).sort()).toEqual(EVERY_TYPE.map((e) => e.type).sort());
    expect(answer.every((r) => r.eventsCount === 1)).toBe(true);
  });

  it('refuses a bad batch whole: nothing of it is stored', async () => {
    const before = await stored();
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    const cases = [
      { events: [event('page_view'), event('page_view', {}, { at: old })] },
      { events: [event('page_view'), { ...event('page_view'), type: 'page_explode' }] },
      { events: [event('page_view'), event('search_type_query')] },
      { events: Array.from({ length: 101 }, () => event('page_view')) },
      { events: [event('page_view', {}, { claims: { big: 'x'.repeat(5000) } })] },
    ];
    for (const body of cases) {
      const res = await lookup.post(`${base()}/events`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
    expect(await stored()).toBe(before);
  });

  it('refuses a batch by the rules of every body: bad JSON, U+0000, nesting, no body, and validation messages', async () => {
    const before = await stored();
    const post = (payload?: string) =>
      t.app.inject({
        method: 'POST',
        url: `${base()}/events`,
        headers: { authorization: `Bearer ${lookupToken}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { payload }),
      });
    const refusal = async (payload?: string) => {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      return (res.json() as { error: { code: number; message: string } }).error.message;
    };
    const good = event('page_view');
    expect(await refusal('{"events": [')).toBe('The request body is not valid JSON');
    expect(await refusal(JSON.stringify({ events: [{ ...good, session: { ...good.session, visitorId: 'a\u0000b' } }] }))).toBe(
      'body.events.0.session.visitorId must not contain the character U+0000',
    );
    const deep = `{"events": [], "deep": ${'['.repeat(200)}${']'.repeat(200)}}`;
    expect(await refusal(deep)).toBe('body must not nest arrays and objects more than 128 levels deep');
    expect(await refusal()).toBe('body.events is required');
    expect(await refusal(JSON.stringify({ events: 'all of them' }))).toBe('body.events must be array');
    expect(await refusal(JSON.stringify({ events: [good, { ...good, location: { ...good.location, url: 12 } }] }))).toMatch(
      /^body\.events\.1/,
    );
    expect(await stored()).toBe(before);
    expect((await post(JSON.stringify({ events: [good] }))).statusCode).toBe(204);
    expect(await stored()).toBe(before + 1);
  });

  it('never stores the visitor IP address; the country comes from the renderer header', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${base()}/events`,
      headers: {
        authorization: `Bearer ${(await org.members.admin.api.post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Geo' })).body.token}`,
        'content-type': 'application/json',
        'x-forwarded-for': '198.51.100.23',
        'x-location-country': 'fr',
      },
      payload: JSON.stringify({ events: [event('page_view', {}, { path: '/geo' })] }),
    });
    expect(res.statusCode).toBe(204);
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from site_insights_event e
       where row_to_json(e)::text like '%203.0.113.77%' or row_to_json(e)::text like '%198.51.100.23%'`.execute(db(t.orm.em.fork()));
    expect(Number(rows[0].n)).toBe(0);
    const countries = rowsOf(
      await aggregate({
        range: 'last24Hours',
        groupBy: [{ column: 'visitorGeoCountry' }],
        where: [{ column: 'urlPath', values: ['/geo'] }],
      }),
    );
    expect(countries).toEqual([{ visitorGeoCountry: 'FR', eventsCount: 1 }]);
  });

  it('joins the events of concurrent requests into fewer commits, each request answered once its events are stored', async () => {
    const store = insightsStore(t.orm, t.config.insightsRetentionMs);
    const before = await stored();
    const commits = store.commits;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => lookup.post(`${base()}/events`, { events: [event('page_view', {}, { path: `/burst/${i}` })] })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(204));
    expect(await stored()).toBe(before + 20);
    expect(store.commits - commits).toBeLessThan(20);
  });

  it("leaves readers' kept answers kept: events stored are not writes any kept answer depends on", async () => {
    const store = insightsStore(t.orm, t.config.insightsRetentionMs);
    const row = (path: string): InsightsRow => ({
      organizationId: org.id, siteId, occurredAt: new Date(), eventType: 'page_view', visitorId: 'v-kept', sessionId: 's-kept',
      url: `https://docs.example.com${path}`, urlPath: path, displayContext: 'site', siteSection: null, siteSpace: null,
      siteShareKey: null, space: null, revision: null, page: null, pageNotFoundType: null, country: null, latitude: null, longitude: null,
      language: null, browser: 'chrome', device: 'desktop', os: 'linux', bot: null, referrer: null, referrerDomain: null, utmSource: null,
      utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null, visitorAuthenticated: false, claims: null, searchQuery: null,
      searchResultRecordId: null, feedbackRating: null, feedbackComment: null, askRating: null, linkTargetKind: null,
      linkTargetValue: null, linkTargetDomain: null, linkPosition: null, apiPath: null, apiMethod: null, llmsVariant: null,
      markdownSource: null, adDomain: null, adPlacement: null, trademarkPlacement: null, detail: null,
    }); // prettier-ignore
    // Writes of other processes (the suite's other files) are heard through the change feed and may
    // move the count while a batch is stored: the count must stay put in at least one of a few tries.
    // Each try stores as many events as start a commit at once (COMMIT_AT_ROWS), so it is open to
    // those writes for the commit's time only, not for the 200 ms a small batch waits for company.
    const perTry = COMMIT_AT_ROWS;
    const before = await stored();
    const moved: boolean[] = [];
    for (let i = 0; i < 10 && !moved.includes(false); i++) {
      const writes = writesSeen();
      await store.append(Array.from({ length: perTry }, () => row(`/kept/${i}`)));
      moved.push(writesSeen() !== writes);
    }
    expect(moved).toContain(false);
    expect(await stored()).toBe(before + moved.length * perTry);
  });
});

describe('storage', () => {
  it('stores every column as it was given: text, numbers, booleans, JSON, null', async () => {
    const row: InsightsRow = {
      organizationId: org.id, siteId, occurredAt: new Date('2026-11-28T10:11:12.345Z'), eventType: 'link_click', visitorId: 'v-all',
      sessionId: 's-all', url: 'https://docs.example.com/a?b=c', urlPath: '/a', displayContext: 'embed', siteSection: 'sec', siteSpace: 'ss',
      siteShareKey: null, space: 'sp', revision: 'rv', page: 'pg', pageNotFoundType: null, country: 'FR', latitude: 48.5, longitude: 2.25,
      language: 'fr', browser: 'firefox', device: 'mobile', os: 'android', bot: null, referrer: 'https://news.example.com/x',
      referrerDomain: 'news.example.com', utmSource: 'mail', utmMedium: 'email', utmCampaign: 'launch', utmTerm: 'docs', utmContent: 'top',
      visitorAuthenticated: true, claims: { plan: 'pro', seats: 3, nested: { ok: true } }, searchQuery: 'café "quoted" \\ back',
      searchResultRecordId: 'rec', feedbackRating: 'good', feedbackComment: 'line\nbreak', askRating: 4, linkTargetKind: 'url',
      linkTargetValue: { url: 'https://example.com' }, linkTargetDomain: 'example.com', linkPosition: 'content', apiPath: null,
      apiMethod: null, llmsVariant: null, markdownSource: null, adDomain: null, adPlacement: null, trademarkPlacement: null,
      detail: { steps: ['a', 1] },
    }; // prettier-ignore
    await ensurePartition(t.orm.em.fork(), new Date('2026-11-01T00:00:00Z'));
    await insightsStore(t.orm, t.config.insightsRetentionMs).append([row]);
    const { rows } = await sql<Record<string, unknown>>`
      select (extract(epoch from occurred_at) * 1000)::float8 as occurred_ms, display_context, latitude, longitude, visitor_authenticated, claims, search_query, feedback_comment, ask_rating,
             link_target_value, detail, site_share_key, utm_content
        from site_insights_event where site_id = ${siteId} and visitor_id = 'v-all'`.execute(db(t.orm.em.fork()));
    expect(rows).toEqual([
      {
        occurred_ms: Date.parse('2026-11-28T10:11:12.345Z'),
        display_context: 'embed',
        latitude: 48.5,
        longitude: 2.25,
        visitor_authenticated: true,
        claims: { plan: 'pro', seats: 3, nested: { ok: true } },
        search_query: 'café "quoted" \\ back',
        feedback_comment: 'line\nbreak',
        ask_rating: 4,
        link_target_value: { url: 'https://example.com' },
        detail: { steps: ['a', 1] },
        site_share_key: null,
        utm_content: 'top',
      },
    ]);
  });
});

describe('plans', () => {
  it("reads a rolled-up query's partial hours through the index, even when the statistics make them a large share of the month", async () => {
    // The newest hour holds as many events as the other 30 days, all at one instant, as a burst (or
    // events arriving since the last ANALYZE) leaves the statistics: the planner then estimates the
    // hour as half the month's events, and a sequential scan of the month as the cheaper read.
    const skewed = (await org.members.admin.api.post(`/v1/orgs/${org.id}/sites`, { title: 'Skewed statistics' })).body.id as string;
    const em = t.orm.em.fork();
    const now = new Date();
    for (const at of [now.getTime() - 31 * 86_400_000, now.getTime()]) await ensurePartition(em, monthOf(new Date(at)).from);
    await sql`insert into site_insights_event (id, organization_id, site_id, occurred_at, event_type, visitor_id, session_id, url, url_path,
                display_context, browser, device, os, visitor_authenticated)
              select gen_random_uuid(), ${org.id}, ${skewed},
                     case when i % 2 = 0 then date_trunc('hour', ${now.toISOString()}::timestamptz) else ${now.toISOString()}::timestamptz - interval '30 days' * random() end,
                     'page_view', 'v' || i % 50, 's' || i % 50, 'https://docs.example.com/p', '/p', 'site', 'chrome', 'desktop', 'linux', false
                from generate_series(1, 20000) as i`.execute(db(em));
    await sql`analyze site_insights_event`.execute(db(em));
    const plan = planAggregation({ range: 'last30Days', groupBy: [{ column: 'urlPath' }] }, now);
    expect(plan.segments.map((s) => s.source)).toContain('raw');
    type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] };
    const explained = await inAggregation(em, plan, async (tx) => {
      const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>`explain (format json) ${aggregationQuery(skewed, plan)}`.execute(
        db(tx),
      );
      return rows[0]['QUERY PLAN'][0].Plan;
    });
    const reads = (node: PlanNode): string[] => [
      ...(node['Relation Name']?.startsWith('site_insights_event') ? [`${node['Node Type']} ${node['Relation Name']}`] : []),
      ...(node.Plans ?? []).flatMap(reads),
    ];
    const scans = reads(explained);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.filter((s) => s.startsWith('Seq Scan'))).toEqual([]);
    // The newest hour is read from the events: its 10,000 are counted (the days before come from
    // the rollups, which rows written here in SQL do not reach).
    const { body } = await org.members.admin.api.post(`/v1/orgs/${org.id}/sites/${skewed}/insights/events/aggregate`, {
      range: 'last30Days',
      groupBy: [{ column: 'urlPath' }],
    });
    const [path] = rowsOf(body);
    expect(path.urlPath).toBe('/p');
    expect(path.eventsCount).toBeGreaterThanOrEqual(10_000);
  });
});

describe('authorization', () => {
  it('refuses a lookup token of another organization, and members who may not', async () => {
    expect((await otherLookup.post(`${base()}/events`, { events: [event('page_view')] })).status).toBe(404);
    expect((await other.members.admin.api.post(`${base()}/events`, { events: [event('page_view')] })).status).toBe(404);
    expect((await org.members.guest.api.post(`${base()}/events`, { events: [event('page_view')] })).status).toBe(403);
    expect((await org.members.read.api.post(`${base()}/events/aggregate`, { range: 'last7Days' })).status).toBe(403);
    expect((await org.members.create.api.get(`${base()}/visitor-segments`)).status).toBe(403);
    expect((await lookup.post(`${base()}/events/aggregate`, { range: 'last7Days' })).status).toBe(403);
    expect((await other.members.admin.api.post(`${base()}/events/aggregate`, { range: 'last7Days' })).status).toBe(404);
  });
});

describe('query language', () => {
  let site: string;
  const url = () => `/v1/orgs/${org.id}/sites/${site}/insights/events/aggregate`;
  const run = async (body: Record<string, unknown>) => {
    const res = await org.members.admin.api.post(url(), body);
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return rowsOf(res.body);
  };
  // Rows written straight through the store, days back, so whole days and hours come from the rollups.
  const now = Date.now();
  const at = (hoursAgo: number) => new Date(now - hoursAgo * 3_600_000);
  const facts: { path: string; type: string; visitor: string; hoursAgo: number; query?: string; rating?: string; referrer?: string }[] = [];
  for (let i = 0; i < 240; i++) {
    const type = i % 10 === 0 ? 'search_type_query' : i % 15 === 0 ? 'page_post_feedback' : 'page_view';
    facts.push({
      path: `/p${i % 4}`,
      type,
      visitor: `v${i % 7}`,
      hoursAgo: ((i * 2.7) % (24 * 9)) + 0.3,
      ...(type === 'search_type_query' ? { query: i % 20 === 0 ? 'install' : 'pricing' } : {}),
      ...(type === 'page_post_feedback' ? { rating: i % 2 === 0 ? 'good' : 'bad' } : {}),
      ...(i % 3 === 0 ? { referrer: 'https://www.google.com/search' } : {}),
    });
  }

  beforeAll(async () => {
    site = (await org.members.admin.api.post(`/v1/orgs/${org.id}/sites`, { title: 'Query site' })).body.id;
    const rows: InsightsRow[] = facts.map((f) => ({
      organizationId: org.id, siteId: site, occurredAt: at(f.hoursAgo), eventType: f.type, visitorId: f.visitor, sessionId: `s-${f.visitor}`,
      url: `https://docs.example.com${f.path}?utm_source=mail`, urlPath: f.path, displayContext: 'site', siteSection: null, siteSpace: null,
      siteShareKey: null, space: 'sp', revision: 'r', page: 'pg', pageNotFoundType: null, country: 'DE', latitude: null, longitude: null,
      language: 'de', browser: 'firefox', device: 'desktop', os: 'linux', bot: null, referrer: f.referrer ?? null,
      referrerDomain: f.referrer ? 'google.com' : null, utmSource: 'mail', utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null,
      visitorAuthenticated: false, claims: null, searchQuery: f.query ?? null, searchResultRecordId: null, feedbackRating: f.rating ?? null,
      feedbackComment: null, askRating: null, linkTargetKind: null, linkTargetValue: null, linkTargetDomain: null, linkPosition: null,
      apiPath: null, apiMethod: null, llmsVariant: null, markdownSource: null, adDomain: null, adPlacement: null, trademarkPlacement: null,
      detail: null,
    })); // prettier-ignore
    await insightsStore(t.orm, t.config.insightsRetentionMs).append(rows);
  });

  const count = <K extends string>(items: typeof facts, key: (f: (typeof facts)[number]) => K) => {
    const out: Record<string, number> = {};
    for (const f of items) out[key(f)] = (out[key(f)] ?? 0) + 1;
    return out;
  };
  // A preset of days covers this UTC day and the days before it.
  const inLastDays = (days: number) => {
    const from = Math.floor(now / 86_400_000) * 86_400_000 - (days - 1) * 86_400_000;
    return facts.filter((f) => at(f.hoursAgo).getTime() >= from);
  };

  it('counts by urlPath over the rollups as over the events', async () => {
    const rolled = await run({ range: 'last7Days', groupBy: [{ column: 'urlPath' }] });
    const raw = await run({
      range: 'last7Days',
      groupBy: [{ column: 'urlPath' }],
      select: [{ column: 'urlPath' }, { column: 'eventsCount' }, { column: 'visitorsCount' }],
    });
    const want = count(inLastDays(7), (f) => f.path);
    expect(Object.fromEntries(rolled.map((r) => [r.urlPath, r.eventsCount]))).toEqual(want);
    expect(Object.fromEntries(raw.map((r) => [r.urlPath, r.eventsCount]))).toEqual(want);
    for (const r of raw)
      expect(r.visitorsCount).toBe(
        new Set(
          inLastDays(7)
            .filter((f) => f.path === r.urlPath)
            .map((f) => f.visitor),
        ).size,
      );
  });

  it('groups by day, filters, orders, limits, and takes a custom range', async () => {
    const days = await run({ range: 'last7Days', groupBy: [{ column: 'datetime', interval: 'day' }] });
    expect(days.reduce((n, r) => n + (r.eventsCount as number), 0)).toBe(inLastDays(7).length);
    const searches = await run({
      range: 'last30Days',
      where: [{ column: 'eventType', values: ['search_type_query'] }],
      groupBy: [{ column: 'eventSearchQuery' }],
      order: { by: { column: 'eventsCount' }, direction: 'desc' },
      limit: 1,
    });
    const queries = count(
      facts.filter((f) => f.query),
      (f) => f.query!,
    );
    const top = Object.entries(queries).sort((a, b) => b[1] - a[1])[0];
    expect(searches).toEqual([{ eventSearchQuery: top[0], eventsCount: top[1] }]);
    const notPages = await run({
      range: 'last30Days',
      where: [{ column: 'urlPath', operator: 'notIn', values: ['/p0', '/p1'] }],
      select: [{ column: 'eventsCount' }],
    });
    expect(notPages[0].eventsCount).toBe(facts.filter((f) => f.path !== '/p0' && f.path !== '/p1').length);
    const busy = await run({
      range: 'last30Days',
      groupBy: [{ column: 'urlPath' }],
      where: [{ column: 'eventsCount', operator: 'greaterThan', values: [59] }],
    });
    expect(busy.map((r) => r.urlPath).sort()).toEqual(
      Object.entries(count(facts, (f) => f.path))
        .filter(([, n]) => n > 59)
        .map(([p]) => p)
        .sort(),
    );
    const from = at(100).toISOString();
    const to = at(50).toISOString();
    const window = await run({ range: { from, to }, select: [{ column: 'eventsCount' }] });
    expect(window[0].eventsCount).toBe(facts.filter((f) => f.hoursAgo > 50 && f.hoursAgo <= 100).length);
  });

  it('answers ratings, referrers and UTM fields', async () => {
    const ratings = await run({ range: 'last30Days', select: [{ column: 'pageFeedbackRating' }] });
    const rated = count(
      facts.filter((f) => f.rating),
      (f) => f.rating!,
    );
    expect(ratings[0].pageFeedbackRating).toEqual({ ok: 0, good: rated.good ?? 0, bad: rated.bad ?? 0 });
    const referrers = await run({ range: 'last30Days', groupBy: [{ column: 'referrerDomain' }, { column: 'utmSource' }] });
    expect(Object.fromEntries(referrers.map((r) => [r.referrerDomain, r.eventsCount]))).toEqual({
      '': facts.filter((f) => !f.referrer).length,
      'google.com': facts.filter((f) => f.referrer).length,
    });
    expect(new Set(referrers.map((r) => r.utmSource))).toEqual(new Set(['mail']));
  });

  it('refuses queries it cannot answer with 400', async () => {
    for (const body of [
      { range: { from: '2025-01-01T00:00:00Z', to: '2026-06-01T00:00:00Z' } },
      { range: 'last7Days', groupBy: [{ column: 'eventsCount' }] },
      { range: 'last7Days', where: [{ column: 'dayOfWeek', values: [9] }] },
      { range: 'last7Days', where: [{ column: 'eventsCount', operator: 'greaterThan', values: [1, 2] }] },
      { range: 'last7Days', limit: 5000 },
      { range: 'last7Days', groupBy: [{ column: 'no such column' }] },
    ]) {
      const res = await org.members.admin.api.post(url(), body);
      expect(res.status).toBe(400);
    }
  });
});

describe('GitBook client', () => {
  it('tracks, aggregates and lists segments as GitBook answers them', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const api: any = new GitBookAPI({ endpoint: `http://127.0.0.1:${port}`, authToken: org.members.admin.token });
    const tracked = await api.orgs.trackEventsInSiteById(org.id, siteId, { events: [event('page_view', {}, { claims: { plan: 'pro' } })] });
    expect(tracked.status).toBe(204);
    const result = await api.orgs.aggregateSiteEvents(org.id, siteId, {
      range: 'last30Days',
      select: [
        { column: 'datetime', interval: 'hour' },
        { column: 'eventsCount' },
        { column: 'visitorClaim', claim: 'plan' },
        { column: 'page' },
      ],
      groupBy: [{ column: 'datetime', interval: 'hour' }],
    });
    expectMatchesGitBook('aggregateSiteEvents', result.data);
    const segments = await api.orgs.listSiteVisitorSegments(org.id, siteId);
    expectMatchesGitBook('listSiteVisitorSegments', segments.data);
    expect(segments.data.items.some((s: any) => s.claims.plan === 'pro' && s.events === 1)).toBe(true);
    const feedback = await api.orgs.submitAgentFeedbackToSite(org.id, siteId, {
      subject: { kind: 'documentation', url: 'https://docs.example.com/guide' },
      feedback: { category: 'documentation', summary: 'Outdated install step' },
    });
    expect(feedback.status).toBe(201);
    expectMatchesGitBook('submitAgentFeedbackToSite', feedback.data, 201);
  });
});

describe('site deletion', () => {
  it('purges the site events, and refuses its events from then on', async () => {
    const gone = (await org.members.admin.api.post(`/v1/orgs/${org.id}/sites`, { title: 'Short-lived' })).body.id;
    expect((await lookup.post(`/v1/orgs/${org.id}/sites/${gone}/insights/events`, { events: [event('page_view')] })).status).toBe(204);
    expect(await stored(gone)).toBe(1);
    expect((await org.members.admin.api.delete(`/v1/orgs/${org.id}/sites/${gone}`)).status).toBeLessThan(300);
    expect(await stored(gone)).toBe(0);
    // What the first batch read of the site is kept between writes: the deletion is one.
    const after = await lookup.post(`/v1/orgs/${org.id}/sites/${gone}/insights/events`, { events: [event('page_view')] });
    expect(after.status).toBe(404);
    expect(await stored(gone)).toBe(0);
  });
});

describe('retention', () => {
  it('drops the partitions of months past the retention, and the older rows and rollups of the rest', async () => {
    const em = t.orm.em.fork();
    const month = new Date(Date.UTC(2024, 0, 1));
    await ensurePartition(em, month);
    const old = new Date(Date.UTC(2024, 0, 15));
    await sql`insert into site_insights_hourly (site_id, hour, event_type, url_path, search_query, events)
              values (${siteId}, ${old.toISOString()}, 'page_view', '/old', '', 3)`.execute(db(em));
    await sql`insert into site_insights_event (id, organization_id, site_id, occurred_at, event_type, visitor_id, session_id, url, url_path,
                display_context, browser, device, os, visitor_authenticated)
              values (gen_random_uuid(), ${org.id}, ${siteId}, ${old.toISOString()}, 'page_view', 'v', 's', 'https://x.example/old', '/old',
                'site', 'chrome', 'desktop', 'linux', false)`.execute(db(em));
    const partitions = async () =>
      (await sql<{ name: string }>`select relname as name from pg_class where relname = 'site_insights_event_2024_01'`.execute(db(em)))
        .rows;
    expect(await partitions()).toHaveLength(1);
    await expireInsights(em, new Date(Date.UTC(2024, 1, 1)));
    expect(await partitions()).toHaveLength(0);
    const { rows } = await sql<{
      n: string;
    }>`select count(*) as n from site_insights_hourly where site_id = ${siteId} and url_path = '/old'`.execute(db(em));
    expect(Number(rows[0].n)).toBe(0);
    // This month's events are untouched.
    expect(await stored()).toBeGreaterThan(0);
  });
});
