import { describe, expect, it } from '@jest/globals';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { aggregationQuery, COLUMNS, geoCell } from '../../src/db/insights.ts';
import { planAggregation, QueryError, resolveRange, splitRange, type AggregationInput } from '../../src/domain/sites/insights-query.ts';
import {
  addCounts,
  countryOf,
  dailyCounts,
  locationParts,
  parseUserAgent,
  prepareEvents,
  sortedCounts,
  urlDomain,
  type InsightsRow,
  type RollupCount,
} from '../../src/domain/sites/insights.ts';
import { PLAIN_COLUMNS } from '../../src/api/sites/insights/schemas.ts';

/** The translation of GitBook's insights query language: planning (pure) and the SQL it becomes (compiled, not run). */

const compiler = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const NOW = new Date('2026-11-29T10:37:12.000Z');
const compile = (input: AggregationInput) => aggregationQuery('site-1', planAggregation(input, NOW)).compile(compiler);

describe('ranges', () => {
  it('resolves presets to whole days (hours for the last 24 hours) back from now, and clamps to the retention', () => {
    expect(resolveRange('last7Days', NOW)).toEqual({ from: new Date('2026-11-23T00:00:00.000Z'), to: NOW });
    expect(resolveRange('last24Hours', NOW)).toEqual({ from: new Date('2026-11-28T11:00:00.000Z'), to: NOW });
    expect(resolveRange('lastYear', NOW, new Date('2026-06-01T00:00:00Z')).from).toEqual(new Date('2026-06-01T00:00:00Z'));
  });

  it('refuses custom ranges that are backwards or longer than 366 days', () => {
    expect(() => resolveRange({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, NOW)).toThrow(QueryError);
    expect(() => resolveRange({ from: '2024-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, NOW)).toThrow(QueryError);
  });

  it('splits a range into raw partial hours, hourly partial days and daily whole days, adjacent and covering it', () => {
    const from = new Date('2026-10-30T10:37:12Z');
    const parts = splitRange(from, NOW, true);
    expect(parts.map((p) => p.source)).toEqual(['raw', 'hourly', 'daily', 'hourly', 'raw']);
    expect(parts[0].from).toEqual(from);
    expect(parts.at(-1)!.to).toEqual(NOW);
    for (let i = 1; i < parts.length; i++) expect(parts[i].from).toEqual(parts[i - 1].to);
    expect(parts[2]).toMatchObject({ from: new Date('2026-10-31T00:00:00Z'), to: new Date('2026-11-29T00:00:00Z') });
    expect(splitRange(from, NOW, false).map((p) => p.source)).toEqual(['raw', 'hourly', 'raw']);
    // Inside one hour: the events alone.
    expect(splitRange(new Date('2026-11-29T10:01:00Z'), NOW, true).map((p) => p.source)).toEqual(['raw']);
  });
});

describe('planning', () => {
  it('answers the groups and the events count without select, and groups selected keys', () => {
    const plan = planAggregation({ range: 'last30Days', groupBy: [{ column: 'urlPath' }] }, NOW);
    expect(plan.output.map((c) => c.column)).toEqual(['urlPath', 'eventsCount']);
    const selected = planAggregation({ range: 'last30Days', select: [{ column: 'eventType' }, { column: 'visitorsCount' }] }, NOW);
    expect(selected.groups.map((c) => c.column)).toEqual(['eventType']);
  });

  it('reads the rollups only when every column is one they hold', () => {
    const rolled = planAggregation({ range: 'last30Days', groupBy: [{ column: 'datetime', interval: 'day' }] }, NOW);
    expect(rolled.segments.some((s) => s.source === 'daily')).toBe(true);
    const hourly = planAggregation({ range: 'last30Days', groupBy: [{ column: 'hourOfDay' }] }, NOW);
    expect(hourly.segments.map((s) => s.source)).not.toContain('daily');
    const counting = (input: Omit<AggregationInput, 'range'>) => planAggregation({ range: 'last30Days', ...input }, NOW).rollupBy;
    expect(counting({ groupBy: [{ column: 'eventSearchQuery' }] })).toBe('typeQuery');
    expect(counting({ groupBy: [{ column: 'urlPath' }], where: [{ column: 'eventType', values: ['page_view'] }] })).toBe('typePath');
    expect(counting({ groupBy: [{ column: 'urlPath' }] })).toBe('path');
    expect(counting({ groupBy: [{ column: 'datetime', interval: 'day' }] })).toBe('total');
    for (const other of [{ column: 'visitorsCount' }, { column: 'referrer' }, { column: 'eventSearchQuery' }]) {
      const raw = planAggregation({ range: 'last30Days', select: [{ column: 'urlPath' }, other] }, NOW);
      expect(raw.segments).toEqual([{ source: 'raw', from: raw.from, to: raw.to }]);
    }
    const exact = planAggregation(
      { range: 'last30Days', where: [{ column: 'datetime', operator: 'greaterThan', values: ['2026-11-20T00:00:00Z'] }] },
      NOW,
    );
    expect(exact.segments.map((s) => s.source)).toEqual(['raw']);
  });

  it('puts filters on counts after grouping, and refuses what cannot be answered', () => {
    const plan = planAggregation(
      { range: 'last7Days', groupBy: [{ column: 'urlPath' }], where: [{ column: 'eventsCount', operator: 'greaterThan', values: [5] }] },
      NOW,
    );
    expect(plan.having).toHaveLength(1);
    expect(plan.where).toHaveLength(0);
    const bad: AggregationInput[] = [
      { range: 'last7Days', groupBy: [{ column: 'visitorsCount' }] },
      { range: 'last7Days', select: [{ column: 'visitorClaim' }] },
      { range: 'last7Days', order: { by: { column: 'urlPath' }, direction: 'asc' } },
      { range: 'last7Days', where: [{ column: 'hourOfDay', values: [24] }] },
      { range: 'last7Days', where: [{ column: 'urlPath', operator: 'lessThan', values: ['a', 'b'] }] },
      { range: 'last7Days', where: [{ column: 'pageFeedbackRating', values: [] }] },
      { range: 'last7Days', where: [{ column: 'page', values: ['not a page'] }] },
    ];
    for (const input of bad) expect(() => planAggregation(input, NOW)).toThrow(QueryError);
  });
});

describe('SQL', () => {
  it('knows every column of GitBook query language', () => {
    for (const column of [...PLAIN_COLUMNS, 'datetime', 'visitorGeoPoint', 'visitorClaim']) expect(COLUMNS[column]).toBeDefined();
  });

  it('binds every value and quotes no input into the text', () => {
    const hostile = "x'); drop table site; --";
    const { sql, parameters } = compile({
      range: 'last7Days',
      select: [{ column: 'visitorClaim', claim: hostile }, { column: 'eventsCount' }],
      where: [
        { column: 'urlPath', values: [hostile, null] },
        { column: 'visitorClaim', claim: hostile, values: [hostile] },
        { column: 'eventsCount', operator: 'greaterThanOrEqual', values: [3] },
      ],
      order: { by: { column: 'eventsCount' }, direction: 'desc' },
      limit: 10,
    });
    expect(sql).not.toContain('drop table');
    expect(parameters).toContain(hostile);
    expect(parameters).toContainEqual([hostile]);
    expect(parameters).toContain('site-1');
    expect(sql).toMatch(/having .*>= \$\d+/s);
    expect(sql).toMatch(/order by "c1" desc nulls last/);
    expect(sql).toMatch(/limit \$\d+$/);
  });

  it('reads the rollup tables for whole days and the events for the partial hours', () => {
    const { sql } = compile({ range: 'last30Days', groupBy: [{ column: 'urlPath' }] });
    expect(sql).toContain('site_insights_daily');
    expect(sql).toContain('site_insights_hourly');
    expect(sql).toContain('sum(e.n)');
    const raw = compile({
      range: 'last30Days',
      groupBy: [{ column: 'urlPath' }],
      select: [{ column: 'urlPath' }, { column: 'sessionsCount' }],
    });
    expect(raw.sql).not.toContain('site_insights_daily');
    expect(raw.sql).toContain('count(distinct e.session_id)');
  });

  it('groups geo points on a grid that H3 precision narrows', () => {
    expect(geoCell(0)).toBe(10);
    expect(geoCell(15)).toBe(0.1);
    expect(geoCell(2)).toBeLessThan(geoCell(1));
  });
});

describe('events', () => {
  it('reads browser, device, system and crawler from user agents', () => {
    expect(
      parseUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1'),
    ).toEqual({
      browser: 'safari',
      device: 'mobile',
      os: 'ios',
      bot: null,
    });
    expect(
      parseUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36 Edg/120.0'),
    ).toMatchObject({ browser: 'edge', os: 'windows', device: 'desktop' });
    expect(parseUserAgent('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)').bot).toBe('googlebot');
    expect(
      parseUserAgent('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)').bot,
    ).toBe('claudebot');
  });

  it('takes the path and UTM fields of a location, the domain of a referrer, the country of a header', () => {
    expect(locationParts('https://docs.example.com/a%20b/c?utm_source=x&utm_campaign=y')).toMatchObject({
      urlPath: '/a b/c',
      utmSource: 'x',
      utmCampaign: 'y',
      utmMedium: null,
    });
    expect(urlDomain('https://www.google.com/search?q=1')).toBe('google.com');
    expect(urlDomain('')).toBeNull();
    expect(countryOf('fr')).toBe('FR');
    expect(countryOf('France')).toBeNull();
  });
});

describe('prepared events', () => {
  const row = (at: string, urlPath: string, eventType = 'page_view', searchQuery: string | null = null) =>
    ({ siteId: 's1', occurredAt: new Date(at), eventType, urlPath, searchQuery, claims: null, latitude: 1.5 }) as unknown as InsightsRow;

  it('writes the rows as JSON elements that join into one array, and the months they fall in', () => {
    const first = prepareEvents([row('2026-11-30T10:15:00Z', '/a'), row('2026-12-01T00:05:00Z', '/b')]);
    const second = prepareEvents([row('2026-11-30T11:00:00Z', '/a', 'search_type_query', 'install')]);
    const joined = JSON.parse(`[${[first.json, second.json].join(',')}]`) as Record<string, unknown>[];
    expect(joined.map((r) => [r.urlPath, r.occurredAt, r.claims, r.latitude])).toEqual([
      ['/a', '2026-11-30T10:15:00.000Z', null, 1.5],
      ['/b', '2026-12-01T00:05:00.000Z', null, 1.5],
      ['/a', '2026-11-30T11:00:00.000Z', null, 1.5],
    ]);
    expect(first.count).toBe(2);
    expect(first.months).toEqual([Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1)]);
  });

  /** Counts as rows of [period, type, path, query, events], in the order they are upserted. */
  const table = (counts: Map<string, RollupCount>, period: (at: Date) => string) =>
    sortedCounts(counts).map((c) => [period(c.at), c.eventType, c.urlPath, c.searchQuery, c.events]);

  it('counts each event four times an hour, sums requests without changing their counts, and sums hours into days', () => {
    const a = prepareEvents([row('2026-11-30T10:15:00Z', '/a'), row('2026-11-30T10:45:00Z', '/a')]);
    const b = prepareEvents([row('2026-11-30T11:00:00Z', '/a', 'search_type_query', 'install')]);
    const all = new Map();
    addCounts(all, a.hourly);
    addCounts(all, b.hourly);
    const hourly = table(all, (at) => at.toISOString().slice(11, 13));
    expect(hourly).toEqual([
      ['10', '', '', '', 2],
      ['10', '', '/a', '', 2],
      ['10', 'page_view', '', '', 2],
      ['10', 'page_view', '/a', '', 2],
      ['11', '', '', '', 1],
      ['11', '', '/a', '', 1],
      ['11', 'search_type_query', '', 'install', 1],
      ['11', 'search_type_query', '/a', '', 1],
    ]);
    // The requests' own counts are left as they were.
    expect(sortedCounts(a.hourly).map((c) => c.events)).toEqual([2, 2, 2, 2]);
    const daily = table(dailyCounts(all), (at) => at.toISOString());
    expect(daily).toEqual([
      ['2026-11-30T00:00:00.000Z', '', '', '', 3],
      ['2026-11-30T00:00:00.000Z', '', '/a', '', 3],
      // Keys start with each part's length: a type of 17 characters sorts before one of 9.
      ['2026-11-30T00:00:00.000Z', 'search_type_query', '', 'install', 1],
      ['2026-11-30T00:00:00.000Z', 'search_type_query', '/a', '', 1],
      ['2026-11-30T00:00:00.000Z', 'page_view', '', '', 2],
      ['2026-11-30T00:00:00.000Z', 'page_view', '/a', '', 2],
    ]);
  });
});
