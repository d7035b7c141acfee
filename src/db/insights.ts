import { sql, type RawBuilder } from 'kysely';
import { randomUUID } from 'node:crypto';
import {
  addCounts,
  dailyCounts,
  dayOf,
  hourOf,
  monthOf,
  partitionName,
  prepareEvents,
  sortedCounts,
  type InsightsRow,
  type RollupCount,
} from '../domain/sites/insights.ts';
import {
  AGGREGATES,
  columnKey,
  type ColumnRef,
  type FilterInput,
  type Operator,
  type Plan,
  type RollupCounting,
} from '../domain/sites/insights-query.ts';
import { db } from './kysely.ts';
import { forkEm, transaction, type Em, type Orm } from './orm.ts';
import { withoutCountingWrites } from './write-count.ts';
import type { ReaderEventReceiver } from './integration-events.ts';

export type { InsightsRow };

/**
 * Site insights storage (Migration0034SiteInsights). Everything the service does with insights goes
 * through `InsightsStore`, so another engine (ClickHouse, docs/scaling.md) can take its place
 * behind the same five operations; `PostgresInsightsStore` is the one of this service:
 *
 * - `append` is a group commit: the events of every request that arrives while a commit is under
 *   way wait (and a few, fewer than COMMIT_AT_ROWS, wait up to COMMIT_DELAY_MS for more), already
 *   written as JSON text and added to the rollup counts, and the next commit stores all of them in
 *   one statement (one round trip, one transaction): the events inserted from one JSON parameter
 *   and their rollup counts upserted from unnested arrays. A request's promise resolves once the
 *   commit holding its events is durable, so its 2xx is never sent before.
 * - Monthly partitions are created ahead of need (this month and the next, checked once per
 *   process and hour) and those past the retention are dropped at the same time.
 * - `aggregate` runs one statement built from a plan (domain/sites/insights-query.ts): every
 *   identifier comes from COLUMNS below, every value is a bound parameter, under a statement
 *   timeout. Ranges the rollups can answer read whole days and hours from them and only the
 *   partial hours at the ends from the events.
 */

/**
 * What storing a site's events needs of it: its visibility, and the installations on it that hear
 * its readers' events (readerEventReceivers). The API keeps it between writes (AppDeps.siteTracking),
 * so that a batch of events reads nothing but its commit.
 */
export interface SiteTracking {
  id: string;
  visibility: string;
  receivers: ReaderEventReceiver[];
}

export interface SegmentRow {
  claims: Record<string, unknown> | null;
  events: number;
  visitors: number;
  sessions: number;
}

export interface AgentFeedbackRow {
  organizationId: string;
  siteId: string;
  source: string | null;
  subject: Record<string, unknown>;
  feedback: Record<string, unknown>;
  reportedBy: Record<string, unknown> | null;
}

/** One answer row of an aggregation: the value of each planned column by its key. */
export type AggregateRow = Record<string, unknown>;

export interface InsightsStore {
  /** Stores events; resolves once they are durable. */
  append(rows: InsightsRow[]): Promise<void>;
  aggregate(em: Em, siteId: string, plan: Plan): Promise<AggregateRow[]>;
  segments(em: Em, siteId: string, from: Date, to: Date, limit: number): Promise<SegmentRow[]>;
  /** Removes every event of a site (in the transaction of `em`). */
  purgeSite(em: Em, siteId: string): Promise<void>;
  addAgentFeedback(em: Em, row: AgentFeedbackRow): Promise<string>;
}

/** Events inserted by one statement at most; more waiting go in the next. */
const MAX_ROWS_PER_COMMIT = 5000;
/**
 * A commit starts as soon as this many events wait. Fewer wait for more, up to COMMIT_DELAY_MS from
 * the arrival of the first of them: the rollup rows a commit upserts follow the paths and queries
 * of its events, not their number, so a trickle of small batches committed one by one would cost
 * the database about as many upserts as events.
 */
export const COMMIT_AT_ROWS = 1000;
const COMMIT_DELAY_MS = 200;
/** How long one aggregation may run. */
const STATEMENT_TIMEOUT = '5s';

/**
 * The events of the next commit, already in the form it sends, filled by the requests that arrive
 * before it starts: what waits is a string per request and a count per rollup row, so the parsed
 * events and rows are garbage as soon as `append` returns (the young generation collects them
 * instead of every collection copying them while they wait).
 */
interface Group {
  /** Each request's events as the elements of a JSON array (without its brackets), read by `jsonb_to_recordset`. */
  parts: string[];
  count: number;
  /** Their hourly counts (countHourly in domain/sites/insights.ts). */
  hourly: Map<string, RollupCount>;
  /** The starts of the months they fall in (ms). */
  months: Set<number>;
  /** When its first request arrived (Date.now()). */
  at: number;
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

export class PostgresInsightsStore implements InsightsStore {
  /** The commits to come, in order: requests join the last while it has room. */
  private groups: Group[] = [];
  /** Events waiting in `groups`. */
  private queued = 0;
  private running = false;
  /** Ends the wait of `drain` before its delay is over (enough events are waiting). */
  private wake: (() => void) | undefined;
  private checkedPartitionsAt = 0;
  /** Statements committed by `append` (group commits), for tests and the benchmark. */
  commits = 0;

  private readonly orm: Orm;
  private readonly retentionMs: number;

  constructor(orm: Orm, retentionMs: number) {
    this.orm = orm;
    this.retentionMs = retentionMs;
  }

  append(rows: InsightsRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    const events = prepareEvents(rows);
    return new Promise((resolve, reject) => {
      let group = this.groups.at(-1);
      if (!group || group.count + events.count > MAX_ROWS_PER_COMMIT) {
        group = { parts: [], count: 0, hourly: new Map(), months: new Set(), at: Date.now(), waiters: [] };
        this.groups.push(group);
      }
      group.parts.push(events.json);
      group.count += events.count;
      addCounts(group.hourly, events.hourly);
      for (const m of events.months) group.months.add(m);
      group.waiters.push({ resolve, reject });
      this.queued += events.count;
      if (!this.running) {
        this.running = true;
        void this.drain();
      } else if (this.queued >= COMMIT_AT_ROWS) this.wake?.();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.groups.length > 0) {
        // Requests arriving in the same turn of the event loop join this commit, and more within the delay.
        const delay = this.queued >= COMMIT_AT_ROWS ? 0 : this.groups[0].at + COMMIT_DELAY_MS - Date.now();
        await new Promise<void>((resolve) => {
          const timer = delay > 0 ? setTimeout(resolve, delay) : setImmediate(resolve);
          this.wake = () => {
            if (delay > 0) clearTimeout(timer as NodeJS.Timeout);
            resolve();
          };
        });
        this.wake = undefined;
        // Taken out before the commit starts: requests arriving meanwhile start the next group.
        const group = this.groups.shift()!;
        this.queued -= group.count;
        try {
          await this.commit(group);
          for (const w of group.waiters) w.resolve();
        } catch (error) {
          for (const w of group.waiters) w.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * One transaction for the batch. No answer kept between writes reads these tables, so their writes
   * are left out of the process's count of writes (write-count.ts): events arriving do not make every
   * reader's kept answer (URL lookups, published sites, revisions) be read again.
   */
  private async commit(group: Group): Promise<void> {
    await withoutCountingWrites(async () => {
      await this.ensurePartitions(group.months);
      // One statement, so one round trip and its own transaction: the events and both rollups, or none.
      await sql`
        with events as (${insertEvents(`[${group.parts.join(',')}]`)}),
             hourly as (${upsertRollup('site_insights_hourly', 'hour', sortedCounts(group.hourly))})
        ${upsertRollup('site_insights_daily', 'day', sortedCounts(dailyCounts(group.hourly)))}`.execute(db(forkEm(this.orm)));
    });
    this.commits++;
  }

  /** Partitions for every month the events fall in (`months`), this one and the next; expired ones dropped (once an hour). */
  private async ensurePartitions(months: Set<number>): Promise<void> {
    const now = Date.now();
    const fresh = now - this.checkedPartitionsAt < 3_600_000;
    const current = monthOf(new Date(now)).from.getTime();
    if (fresh && [...months].every((m) => m === current || m === monthOf(new Date(current + 40 * 86_400_000)).from.getTime())) return;
    months.add(current);
    months.add(monthOf(new Date(current + 40 * 86_400_000)).from.getTime());
    const em = forkEm(this.orm);
    for (const m of months) await ensurePartition(em, new Date(m));
    await expireInsights(em, new Date(now - this.retentionMs));
    this.checkedPartitionsAt = now;
  }

  aggregate(em: Em, siteId: string, plan: Plan): Promise<AggregateRow[]> {
    return inAggregation(em, plan, async (tx) => (await aggregationQuery(siteId, plan).execute(db(tx))).rows);
  }

  async segments(em: Em, siteId: string, from: Date, to: Date, limit: number): Promise<SegmentRow[]> {
    const rows = await db(em)
      .selectFrom('site_insights_event as e')
      .where('e.site_id', '=', siteId)
      .where('e.occurred_at', '>=', from.toISOString())
      .where('e.occurred_at', '<', to.toISOString())
      .select([
        sql<Record<string, unknown> | null>`coalesce(e.claims, '{}'::jsonb)`.as('claims'),
        sql<string>`count(*)`.as('events'),
        sql<string>`count(distinct e.visitor_id)`.as('visitors'),
        sql<string>`count(distinct e.session_id)`.as('sessions'),
      ])
      .groupBy(sql`coalesce(e.claims, '{}'::jsonb)`)
      .orderBy(sql`count(*)`, 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ claims: r.claims, events: Number(r.events), visitors: Number(r.visitors), sessions: Number(r.sessions) }));
  }

  async purgeSite(em: Em, siteId: string): Promise<void> {
    await db(em).deleteFrom('site_insights_event').where('site_id', '=', siteId).execute();
    await db(em).deleteFrom('site_insights_hourly').where('site_id', '=', siteId).execute();
    await db(em).deleteFrom('site_insights_daily').where('site_id', '=', siteId).execute();
    await db(em).deleteFrom('site_agent_feedback').where('site_id', '=', siteId).execute();
  }

  async addAgentFeedback(em: Em, row: AgentFeedbackRow): Promise<string> {
    const id = randomUUID();
    await db(em)
      .insertInto('site_agent_feedback')
      .values({
        id,
        organization_id: row.organizationId,
        site_id: row.siteId,
        source: row.source,
        subject: JSON.stringify(row.subject) as never,
        feedback: JSON.stringify(row.feedback) as never,
        reported_by: row.reportedBy === null ? null : (JSON.stringify(row.reportedBy) as never),
      })
      .execute();
    return id;
  }
}

const stores = new WeakMap<Orm, PostgresInsightsStore>();

/** The process's store on `orm` (one group commit queue per process and database). */
export function insightsStore(orm: Orm, retentionMs: number): PostgresInsightsStore {
  let store = stores.get(orm);
  if (!store) {
    store = new PostgresInsightsStore(orm, retentionMs);
    stores.set(orm, store);
  }
  return store;
}

/** The partition of the month starting at `from` (named from the date alone: no input reaches the name). */
export async function ensurePartition(em: Em, from: Date): Promise<void> {
  const { to } = monthOf(from);
  const name = partitionName(from);
  // Partition DDL: the name is made of digits, the bounds are formatted by PostgreSQL.
  await sql`
    do $$ begin
      -- Processes creating the same month's partition take turns.
      perform pg_advisory_xact_lock(hashtext('site_insights_event partitions'));
      if to_regclass(${sql.lit(`insights_partitions.${name}`)}) is null then
        execute format('create table insights_partitions.%I partition of site_insights_event for values from (%L) to (%L)',
          ${sql.lit(name)}, ${sql.lit(from.toISOString())}::timestamptz, ${sql.lit(to.toISOString())}::timestamptz);
      end if;
    end $$`.execute(db(em));
}

/**
 * Retention: partitions wholly older than `oldest` are dropped; in the partition it falls in, older
 * events are deleted; rollup rows older are deleted.
 */
export async function expireInsights(em: Em, oldest: Date): Promise<void> {
  const { rows } = await sql<{ name: string; upper: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as upper
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'site_insights_event'::regclass`.execute(db(em));
  for (const { name } of rows) {
    const m = /^site_insights_event_(\d{4})_(\d{2})$/.exec(name);
    if (!m) continue;
    const end = new Date(Date.UTC(Number(m[1]), Number(m[2]), 1));
    if (end <= oldest) await sql`drop table if exists ${sql.table(`insights_partitions.${name}`)}`.execute(db(em));
  }
  await db(em).deleteFrom('site_insights_event').where('occurred_at', '<', oldest.toISOString()).execute();
  await db(em).deleteFrom('site_insights_hourly').where('hour', '<', hourOf(oldest).toISOString()).execute();
  await db(em).deleteFrom('site_insights_daily').where('day', '<', dayOf(oldest).toISOString()).execute();
}

const COLUMNS_OF_ROW: [keyof InsightsRow, string, string][] = [
  ['organizationId', 'organization_id', 'text'],
  ['siteId', 'site_id', 'text'],
  ['occurredAt', 'occurred_at', 'timestamptz'],
  ['eventType', 'event_type', 'text'],
  ['visitorId', 'visitor_id', 'text'],
  ['sessionId', 'session_id', 'text'],
  ['url', 'url', 'text'],
  ['urlPath', 'url_path', 'text'],
  ['displayContext', 'display_context', 'text'],
  ['siteSection', 'site_section', 'text'],
  ['siteSpace', 'site_space', 'text'],
  ['siteShareKey', 'site_share_key', 'text'],
  ['space', 'space', 'text'],
  ['revision', 'revision', 'text'],
  ['page', 'page', 'text'],
  ['pageNotFoundType', 'page_not_found_type', 'text'],
  ['country', 'country', 'text'],
  ['latitude', 'latitude', 'real'],
  ['longitude', 'longitude', 'real'],
  ['language', 'language', 'text'],
  ['browser', 'browser', 'text'],
  ['device', 'device', 'text'],
  ['os', 'os', 'text'],
  ['bot', 'bot', 'text'],
  ['referrer', 'referrer', 'text'],
  ['referrerDomain', 'referrer_domain', 'text'],
  ['utmSource', 'utm_source', 'text'],
  ['utmMedium', 'utm_medium', 'text'],
  ['utmCampaign', 'utm_campaign', 'text'],
  ['utmTerm', 'utm_term', 'text'],
  ['utmContent', 'utm_content', 'text'],
  ['visitorAuthenticated', 'visitor_authenticated', 'boolean'],
  ['claims', 'claims', 'jsonb'],
  ['searchQuery', 'search_query', 'text'],
  ['searchResultRecordId', 'search_result_record_id', 'text'],
  ['feedbackRating', 'feedback_rating', 'text'],
  ['feedbackComment', 'feedback_comment', 'text'],
  ['askRating', 'ask_rating', 'integer'],
  ['linkTargetKind', 'link_target_kind', 'text'],
  ['linkTargetValue', 'link_target_value', 'jsonb'],
  ['linkTargetDomain', 'link_target_domain', 'text'],
  ['linkPosition', 'link_position', 'text'],
  ['apiPath', 'api_path', 'text'],
  ['apiMethod', 'api_method', 'text'],
  ['llmsVariant', 'llms_variant', 'text'],
  ['markdownSource', 'markdown_source', 'text'],
  ['adDomain', 'ad_domain', 'text'],
  ['adPlacement', 'ad_placement', 'text'],
  ['trademarkPlacement', 'trademark_placement', 'text'],
  ['detail', 'detail', 'jsonb'],
];

/**
 * The INSERT of every event, from one JSON parameter (an array of InsightsRow as JSON.stringify
 * writes them) read by `jsonb_to_recordset` under the rows' own keys: the statement's size does not
 * grow with the events, and PostgreSQL parses the batch instead of the driver escaping an array per
 * column. A missing key is NULL.
 */
function insertEvents(json: string): RawBuilder<unknown> {
  const columns = COLUMNS_OF_ROW.map(([, column]) => sql.ref(column));
  const values = COLUMNS_OF_ROW.map(([key]) => sql.ref(`t.${key}`));
  const definition = COLUMNS_OF_ROW.map(([key, , type]) => sql`${sql.ref(key)} ${sql.raw(type)}`);
  return sql`
    insert into site_insights_event (id, ${sql.join(columns)})
    select gen_random_uuid(), ${sql.join(values)}
      from jsonb_to_recordset(${json}::jsonb) as t(${sql.join(definition)})`;
}

/** The upsert of `counts` (never empty: every event is counted) into a rollup table, adding to the counts there. */
function upsertRollup(
  table: 'site_insights_hourly' | 'site_insights_daily',
  period: 'hour' | 'day',
  counts: RollupCount[],
): RawBuilder<unknown> {
  return sql`
    insert into ${sql.table(table)} (site_id, ${sql.ref(period)}, event_type, url_path, search_query, events)
    select * from unnest(${counts.map((c) => c.siteId)}::text[], ${counts.map((c) => c.at.toISOString())}::timestamptz[],
                         ${counts.map((c) => c.eventType)}::text[], ${counts.map((c) => c.urlPath)}::text[],
                         ${counts.map((c) => c.searchQuery)}::text[], ${counts.map((c) => c.events)}::bigint[])
    on conflict (site_id, ${sql.ref(period)}, event_type, url_path, search_query)
    do update set events = ${sql.table(table)}.events + excluded.events`;
}

// --- Aggregation --------------------------------------------------------------------------------------

/**
 * Every column of the query language: its SQL over the row `e` (an event, or in a rolled-up plan a
 * rollup row with the same column names), and `required` for keys GitBook's answer never gives as
 * null (rows without a value are left out of a grouping by them).
 */
interface ColumnSql {
  expr: (c: ColumnRef, rolled: boolean) => RawBuilder<unknown>;
  /** The rows that have a value: grouping by a column GitBook never answers null for keeps only these. */
  present?: RawBuilder<unknown>;
}

const text = (column: string, blank = false): ColumnSql => ({
  expr: () => (blank ? sql`coalesce(${sql.ref(`e.${column}`)}, '')` : sql.ref(`e.${column}`)),
});
const required = (column: string): ColumnSql => ({
  expr: () => sql.ref(`e.${column}`),
  present: sql`${sql.ref(`e.${column}`)} is not null`,
});
const BINS = { hour: '1 hour', day: '1 day', week: '7 days', month: '' } as const;

/** GitBook's visitorGeoPoint precision (an H3 resolution, 0 to 15) as a grid of degrees: about 10° at 0, dividing by 2.65 a step, never finer than the stored 0.1°. */
export const geoCell = (precision: number) => Math.max(0.1, 10 / 2.65 ** precision);

export const COLUMNS: Record<string, ColumnSql> = {
  // date_bin is arithmetic on the instant (date_trunc with a time zone costs a conversion a row); weeks start on Mondays (2000-01-03 was one).
  datetime: {
    expr: (c) =>
      (c.interval ?? 'day') === 'month'
        ? sql`date_trunc('month', e.occurred_at, 'UTC')`
        : sql`date_bin(${sql.lit(BINS[c.interval ?? 'day'])}::interval, e.occurred_at, timestamptz '2000-01-03 00:00:00+00')`,
  },
  dayOfWeek: { expr: () => sql`extract(isodow from e.occurred_at at time zone 'UTC')::int` },
  hourOfDay: { expr: () => sql`extract(hour from e.occurred_at at time zone 'UTC')::int` },
  url: text('url'),
  urlPath: text('url_path'),
  eventType: text('event_type'),
  eventsCount: { expr: (_c, rolled) => (rolled ? sql`sum(e.n)::bigint` : sql`count(*)`) },
  sessionsCount: { expr: () => sql`count(distinct e.session_id)` },
  visitorsCount: { expr: () => sql`count(distinct e.visitor_id)` },
  siteSection: text('site_section'),
  siteSpace: text('site_space'),
  siteShareKey: text('site_share_key'),
  displayContext: text('display_context'),
  page: { expr: () => sql`case when e.page is null then null else jsonb_build_object('page', e.page, 'space', e.space) end` },
  visitorGeoCountry: text('country'),
  visitorGeoPoint: {
    expr: (c) => {
      const cell = geoCell(c.precision ?? 3);
      return sql`case when e.latitude is null or e.longitude is null then null else jsonb_build_object(
        'latitude', round(e.latitude / ${cell}::float8) * ${cell}::float8,
        'longitude', round(e.longitude / ${cell}::float8) * ${cell}::float8, 'h3', '') end`;
    },
  },
  visitorDevice: text('device'),
  visitorBrowser: text('browser'),
  visitorOS: text('os'),
  visitorBot: text('bot'),
  visitorLanguage: text('language'),
  eventLinkTargetValue: required('link_target_value'),
  eventLinkTargetKind: required('link_target_kind'),
  eventLinkTargetDomain: text('link_target_domain'),
  eventLinkPosition: required('link_position'),
  eventAPIOperationPath: text('api_path'),
  eventAPIOperationMethod: text('api_method'),
  eventLLMSVariant: text('llms_variant'),
  eventPageNotFoundType: text('page_not_found_type'),
  eventMarkdownSource: text('markdown_source'),
  eventSearchQuery: { expr: (_c, rolled) => (rolled ? sql`e.search_query` : sql`coalesce(e.search_query, '')`) },
  eventSearchResultRecordId: text('search_result_record_id'),
  eventPageFeedbackRating: required('feedback_rating'),
  eventPageFeedbackComment: text('feedback_comment', true),
  eventAskResponseRating: required('ask_rating'),
  pageFeedbackRating: {
    expr: () => sql`jsonb_build_object('ok', count(*) filter (where e.feedback_rating = 'ok'),
      'good', count(*) filter (where e.feedback_rating = 'good'), 'bad', count(*) filter (where e.feedback_rating = 'bad'))`,
  },
  askResponseRating: {
    expr: () =>
      sql`jsonb_build_object('positive', count(*) filter (where e.ask_rating = 1), 'negative', count(*) filter (where e.ask_rating = -1))`,
  },
  referrer: text('referrer', true),
  referrerDomain: text('referrer_domain', true),
  utmSource: text('utm_source', true),
  utmMedium: text('utm_medium', true),
  utmCampaign: text('utm_campaign', true),
  utmTerm: text('utm_term', true),
  utmContent: text('utm_content', true),
  visitorAuthenticated: text('visitor_authenticated'),
  visitorClaimProperty: { expr: () => sql`claim_keys.key`, present: sql`claim_keys.key is not null` },
  visitorClaim: { expr: (c) => sql`coalesce(e.claims ->> ${c.claim ?? ''}, '')` },
  eventAdDomain: text('ad_domain', true),
  eventAdPlacement: required('ad_placement'),
  eventTrademarkPlacement: required('trademark_placement'),
};

const OPERATORS: Record<Exclude<Operator, 'in' | 'notIn'>, string> = {
  greaterThan: '>',
  greaterThanOrEqual: '>=',
  lessThan: '<',
  lessThanOrEqual: '<=',
};

/** A filter as SQL: `in` / `notIn` over the values (null matched with `is null`), or one comparison. */
function filterSql(f: FilterInput & { operator: Operator }, rolled: boolean): RawBuilder<unknown> {
  const spec = COLUMNS[f.column];
  if (!spec) throw new Error(`no column ${f.column}`);
  const expr = f.column === 'datetime' ? sql`e.occurred_at` : spec.expr(f, rolled);
  if (f.operator !== 'in' && f.operator !== 'notIn') {
    const value = f.values[0];
    return sql`${expr} ${sql.raw(OPERATORS[f.operator])} ${value}`;
  }
  const nulls = f.values.some((v) => v === null);
  const values = f.values.filter((v) => v !== null);
  const json = values.some((v) => typeof v === 'object');
  const parts: RawBuilder<unknown>[] = [];
  if (values.length > 0) {
    if (json) parts.push(sql`${expr} = any(${values.map((v) => JSON.stringify(v))}::jsonb[])`);
    else if (f.column === 'visitorClaimProperty') parts.push(sql`coalesce(e.claims, '{}'::jsonb) ?| ${values.map(String)}::text[]`);
    else parts.push(sql`${expr}::text = any(${values.map(String)}::text[])`);
  }
  if (nulls) parts.push(sql`${expr} is null`);
  const any = parts.length === 0 ? sql`false` : sql`(${sql.join(parts, sql` or `)})`;
  return f.operator === 'in' ? any : sql`not coalesce(${any}, false)`;
}

/** How each counting's rollup rows are told apart: '' stands for "any" in `event_type` and `url_path` (a path starts with `/`). */
const COUNTINGS: Record<RollupCounting, RawBuilder<unknown>> = {
  typePath: sql`event_type <> '' and url_path <> ''`,
  typeQuery: sql`event_type <> '' and url_path = ''`,
  path: sql`event_type = '' and url_path <> ''`,
  total: sql`event_type = '' and url_path = ''`,
};

/** The rows a plan reads: the events of the range, or the events, hourly and daily rollups of its parts. */
function source(siteId: string, plan: Plan, rolled: boolean): RawBuilder<unknown> {
  if (!rolled) {
    return sql`site_insights_event e`;
  }
  const parts = plan.segments.map((s) => {
    if (s.source === 'raw')
      return sql`select occurred_at, event_type, url_path, coalesce(search_query, '') as search_query, 1::bigint as n
                   from site_insights_event where site_id = ${siteId} and occurred_at >= ${s.from.toISOString()} and occurred_at < ${s.to.toISOString()}`;
    const table = s.source === 'hourly' ? 'site_insights_hourly' : 'site_insights_daily';
    const at = s.source === 'hourly' ? 'hour' : 'day';
    const counting = COUNTINGS[plan.rollupBy];
    return sql`select ${sql.ref(at)} as occurred_at, event_type, url_path, search_query, events as n
                 from ${sql.table(table)} where site_id = ${siteId} and ${sql.ref(at)} >= ${s.from.toISOString()} and ${sql.ref(at)} < ${s.to.toISOString()} and ${counting}`;
  });
  return sql`(${sql.join(parts, sql` union all `)}) e`;
}

/**
 * Runs `read` in a transaction set up for the statement of `plan`: bounded by STATEMENT_TIMEOUT and,
 * for a plan the rollups answer, planned for what it reads. Such a plan reads index ranges: the
 * rollup rows of one site's days and hours, and the events of at most an hour at each end of the
 * range. The planner is not left to choose a sequential scan of a month's events for those hours:
 * the statistics of the newest hour are the least reliable (events arriving since the last
 * ANALYZE, or many of them at one instant, read as a large share of the month), and one such
 * misestimate read all 10 million events of a month (1.2 s instead of 50 ms). Parallel workers and
 * JIT compilation cost more to start than such a plan takes.
 */
export function inAggregation<T>(em: Em, plan: Plan, read: (tx: Em) => Promise<T>): Promise<T> {
  return transaction(em, async (tx) => {
    const timeout = sql`set_config('statement_timeout', ${STATEMENT_TIMEOUT}, true)`;
    if (plan.segments.some((s) => s.source !== 'raw'))
      await sql`select ${timeout}, set_config('enable_seqscan', 'off', true), set_config('max_parallel_workers_per_gather', '0', true),
                       set_config('jit', 'off', true)`.execute(db(tx));
    else await sql`select ${timeout}`.execute(db(tx));
    return read(tx);
  });
}

/** The statement of a plan. Answer columns are `c0`, `c1`, … in the order of `plan.output`. */
export function aggregationQuery(siteId: string, plan: Plan): RawBuilder<AggregateRow> {
  const rolled = plan.segments.some((s) => s.source !== 'raw');
  const groupKeys = plan.groups.map((c) => COLUMNS[c.column].expr(c, rolled));
  const selected = plan.output.map((c, i) => sql`${COLUMNS[c.column].expr(c, rolled)} as ${sql.ref(`c${i}`)}`);
  const conditions: RawBuilder<unknown>[] = rolled
    ? []
    : [sql`e.site_id = ${siteId}`, sql`e.occurred_at >= ${plan.from.toISOString()}`, sql`e.occurred_at < ${plan.to.toISOString()}`];
  for (const f of plan.where) conditions.push(filterSql(f, rolled));
  for (const c of plan.groups) {
    const present = COLUMNS[c.column].present;
    if (present) conditions.push(present);
  }
  const having = plan.having.map((f) => filterSql(f, rolled));
  const claimKeys = [...plan.groups, ...plan.output].some((c) => c.column === 'visitorClaimProperty')
    ? sql`left join lateral jsonb_object_keys(coalesce(e.claims, '{}'::jsonb)) as claim_keys(key) on true`
    : sql``;
  const answeredKeys = plan.output.flatMap((c, i) => (AGGREGATES.has(c.column) ? [] : [i]));
  const orderKey = plan.order ? columnKey(plan.order.by) : undefined;
  const orderAt = orderKey === undefined ? -1 : plan.output.findIndex((c) => columnKey(c) === orderKey);
  const order = plan.order
    ? sql`order by ${orderAt >= 0 ? sql.ref(`c${orderAt}`) : COLUMNS[plan.order.by.column].expr(plan.order.by, rolled)} ${sql.raw(plan.order.direction === 'asc' ? 'asc' : 'desc')} nulls last`
    : answeredKeys.length > 0
      ? sql`order by ${sql.join(answeredKeys.map((i) => sql.raw(String(i + 1))))}`
      : sql``;
  // Group keys are referenced by position when they are answered (so a parameterized expression is not repeated).
  const groupBy =
    groupKeys.length > 0
      ? sql`group by ${sql.join(
          plan.groups.map((c) => {
            const at = plan.output.findIndex((o) => columnKey(o) === columnKey(c));
            return at >= 0 ? sql.raw(String(at + 1)) : COLUMNS[c.column].expr(c, rolled);
          }),
        )}`
      : sql``;
  return sql<AggregateRow>`
    select ${sql.join(selected)}
      from ${source(siteId, plan, rolled)} ${claimKeys}
     ${conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``}
     ${groupBy}
     ${having.length > 0 ? sql`having ${sql.join(having, sql` and `)}` : sql``}
     ${order}
     limit ${plan.limit}`;
}
