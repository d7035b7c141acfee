/**
 * GitBook's insights query language (`SiteInsightsQueryEventsAggregation`), checked and planned:
 * pure, no SQL. The plan says which columns are answered, which group the rows, which filters
 * apply before grouping (`where`) and which after (`having`, on counts), the time range resolved to
 * instants, and whether the hourly and daily rollups can answer it. src/db/insights.ts turns the
 * plan into one SQL statement whose identifiers all come from its fixed catalog.
 */

export type Interval = 'hour' | 'day' | 'week' | 'month';
export interface ColumnRef {
  column: string;
  interval?: Interval;
  precision?: number;
  claim?: string;
}
export type Operator = 'in' | 'notIn' | 'greaterThan' | 'greaterThanOrEqual' | 'lessThan' | 'lessThanOrEqual';
export interface FilterInput extends ColumnRef {
  values: unknown[];
  operator?: Operator;
}
export type RangeInput = 'lastYear' | 'last3Months' | 'last30Days' | 'last7Days' | 'last24Hours' | { from: string; to: string };
export interface AggregationInput {
  select?: ColumnRef[];
  where?: FilterInput[];
  groupBy?: ColumnRef[];
  order?: { by: ColumnRef; direction: 'asc' | 'desc' };
  range: RangeInput;
  limit?: number;
}

/** Columns computed over the rows of a group. */
export const AGGREGATES = new Set(['eventsCount', 'sessionsCount', 'visitorsCount', 'pageFeedbackRating', 'askResponseRating']);
/**
 * Columns the hourly and daily rollups hold (with `datetime` at an interval of an hour or more).
 * They count every event four times (by type and URL path, by type and search query, by URL path,
 * in all), so a plan reads the smallest counting that has its columns, and never path and query together.
 */
export const ROLLUP_COLUMNS = new Set(['datetime', 'dayOfWeek', 'hourOfDay', 'urlPath', 'eventType', 'eventSearchQuery', 'eventsCount']);

/** The longest range a query covers (GitBook's longest preset is a year). */
export const MAX_RANGE_MS = 366 * 86_400_000;
export const MAX_LIMIT = 1000;

const DAY = 86_400_000;
const PRESETS: Record<Exclude<RangeInput, object>, number> = {
  lastYear: 365 * DAY,
  last3Months: 90 * DAY,
  last30Days: 30 * DAY,
  last7Days: 7 * DAY,
  last24Hours: DAY,
};

export class QueryError extends Error {}

/** A column's key: what makes two references the same column (`datetime:day`, `visitorClaim:plan`). */
export function columnKey(c: ColumnRef): string {
  if (c.column === 'datetime') return `datetime:${c.interval ?? 'day'}`;
  if (c.column === 'visitorGeoPoint') return `visitorGeoPoint:${c.precision ?? 3}`;
  if (c.column === 'visitorClaim') return `visitorClaim:${c.claim ?? ''}`;
  return c.column;
}

/** The instants a range covers, [from, to); `oldest` is the retention's limit (older events are never answered). */
export function resolveRange(range: RangeInput, now: Date, oldest?: Date): { from: Date; to: Date } {
  let from: Date;
  let to: Date;
  if (typeof range === 'string') {
    // A preset covers whole periods: the last 24 hours are this hour and the 23 before, the other
    // presets this UTC day and the days before (so a chart by day shows exactly 7, 30, 90 or 365
    // bars, and whole days come from the daily rollup).
    const unit = range === 'last24Hours' ? 3_600_000 : DAY;
    to = now;
    from = new Date(Math.floor(now.getTime() / unit) * unit - PRESETS[range] + unit);
  } else {
    from = new Date(range.from);
    to = new Date(range.to);
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new QueryError('range: from and to must be date-times');
    if (to.getTime() <= from.getTime()) throw new QueryError('range: to must be after from');
    if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw new QueryError('range: at most 366 days');
  }
  if (oldest && from < oldest) from = oldest;
  if (to < from) to = from;
  return { from, to };
}

export type Source = 'raw' | 'hourly' | 'daily';
export interface Segment {
  source: Source;
  from: Date;
  to: Date;
}

const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;
const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;

/**
 * [from, to) cut into the parts each source answers: whole UTC days from the daily rollup (when
 * `days`), whole hours from the hourly rollup, the partial hours at both ends from the events.
 * The parts are adjacent, in order, and never empty.
 */
export function splitRange(from: Date, to: Date, days: boolean): Segment[] {
  const HOUR = 3_600_000;
  const f = from.getTime();
  const t = to.getTime();
  const out: Segment[] = [];
  const push = (source: Source, a: number, b: number) => {
    if (b > a) out.push({ source, from: new Date(a), to: new Date(b) });
  };
  const h0 = Math.min(ceilTo(f, HOUR), t);
  const h1 = Math.max(floorTo(t, HOUR), h0);
  push('raw', f, h0);
  if (days) {
    const d0 = Math.min(ceilTo(h0, DAY), h1);
    const d1 = Math.max(floorTo(h1, DAY), d0);
    push('hourly', h0, d0);
    push('daily', d0, d1);
    push('hourly', d1, h1);
  } else {
    push('hourly', h0, h1);
  }
  push('raw', h1, t);
  return out;
}

export type RollupCounting = 'typePath' | 'typeQuery' | 'path' | 'total';

export interface Plan {
  /** The answer's columns, in order. */
  output: ColumnRef[];
  /** The columns rows are grouped by (keys, no aggregate). */
  groups: ColumnRef[];
  where: (FilterInput & { operator: Operator })[];
  having: (FilterInput & { operator: Operator })[];
  order?: { by: ColumnRef; direction: 'asc' | 'desc' };
  from: Date;
  to: Date;
  limit: number;
  /** The parts of the range and their sources; a single raw part when the rollups cannot answer. */
  segments: Segment[];
  /**
   * Which of the rollups' four countings a rolled-up plan reads: by type and URL path, by type and
   * search query, by URL path over every type, or every event of the period.
   */
  rollupBy: RollupCounting;
}

/**
 * Checks a query and plans it. Without `select`, the answer is the groups and the events count.
 * A column selected that is not an aggregate groups the rows too. The order must be on an answered
 * column or an aggregate. Comparisons (`greaterThan`, …) take exactly one value.
 */
export function planAggregation(input: AggregationInput, now: Date, oldest?: Date): Plan {
  const groupBy = input.groupBy ?? [];
  for (const c of groupBy) if (AGGREGATES.has(c.column)) throw new QueryError(`groupBy: ${c.column} is a count, not a key`);
  const output = input.select && input.select.length > 0 ? input.select : [...groupBy, { column: 'eventsCount' }];
  const groups: ColumnRef[] = [];
  const seen = new Set<string>();
  for (const c of [...groupBy, ...output.filter((c) => !AGGREGATES.has(c.column))]) {
    if (c.column === 'visitorClaim' && !c.claim) throw new QueryError('visitorClaim needs a claim');
    const key = columnKey(c);
    if (seen.has(key)) continue;
    groups.push(c);
    seen.add(key);
  }
  if (input.order && !AGGREGATES.has(input.order.by.column) && !seen.has(columnKey(input.order.by)))
    throw new QueryError(`order.by: ${input.order.by.column} is neither a count nor a grouped column`);
  const where: Plan['where'] = [];
  const having: Plan['having'] = [];
  for (const f of input.where ?? []) {
    const operator = f.operator ?? 'in';
    if (operator !== 'in' && operator !== 'notIn' && f.values.length !== 1)
      throw new QueryError(`where ${f.column}: ${operator} compares with exactly one value`);
    if (f.column === 'visitorClaim' && !f.claim) throw new QueryError('where visitorClaim: needs a claim');
    if (f.column === 'pageFeedbackRating' || f.column === 'askResponseRating')
      throw new QueryError(
        `where ${f.column}: a rating breakdown cannot be filtered on; filter on eventPageFeedbackRating or eventAskResponseRating`,
      );
    checkValues(f.column, f.values, operator);
    (AGGREGATES.has(f.column) ? having : where).push({ ...f, operator });
  }
  const { from, to } = resolveRange(input.range, now, oldest);
  const referenced = [...output, ...groups, ...where, ...having, ...(input.order ? [input.order.by] : [])];
  const byQuery = referenced.some((c) => c.column === 'eventSearchQuery');
  const byPath = referenced.some((c) => c.column === 'urlPath');
  const byType = referenced.some((c) => c.column === 'eventType');
  const rollupBy: RollupCounting = byQuery ? 'typeQuery' : byType ? 'typePath' : byPath ? 'path' : 'total';
  // The rollups count each event twice: once by path, once by search query; never by both.
  const rolled = referenced.every((c) => ROLLUP_COLUMNS.has(c.column)) && !(byQuery && byPath);
  const hourly = referenced.some((c) => c.column === 'hourOfDay' || (c.column === 'datetime' && c.interval === 'hour'));
  // A filter on datetime cuts inside hours: the events answer it.
  const exact = where.some((f) => f.column === 'datetime');
  const segments = rolled && !exact ? splitRange(from, to, !hourly) : [{ source: 'raw' as const, from, to }];
  return {
    output,
    groups,
    where,
    having,
    order: input.order,
    from,
    to,
    limit: Math.min(input.limit ?? MAX_LIMIT, MAX_LIMIT),
    segments: segments.length > 0 ? segments : [{ source: 'raw', from, to }],
    rollupBy,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The values a filter of a column may hold, as GitBook's SiteInsightsQueryEventsValues says. */
function checkValues(column: string, values: unknown[], operator: Operator) {
  const bad = (what: string) => new QueryError(`where ${column}: values must be ${what}`);
  const all = (test: (v: unknown) => boolean, what: string) => {
    if (!values.every(test)) throw bad(what);
  };
  const comparing = operator !== 'in' && operator !== 'notIn';
  switch (column) {
    case 'datetime':
      return all((v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)), 'date-times');
    case 'dayOfWeek':
      return all((v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 7, 'integers from 1 to 7');
    case 'hourOfDay':
      return all((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 23, 'integers from 0 to 23');
    case 'eventsCount':
    case 'sessionsCount':
    case 'visitorsCount':
    case 'eventAskResponseRating':
      return all((v) => typeof v === 'number' && Number.isFinite(v), 'numbers');
    case 'visitorAuthenticated':
      if (comparing) throw bad('compared with in or notIn');
      return all((v) => typeof v === 'boolean' || v === null, 'booleans or null');
    case 'page':
      if (comparing) throw bad('compared with in or notIn');
      return all(
        (v) => v === null || (isObject(v) && typeof v.space === 'string' && (typeof v.page === 'string' || v.page === null)),
        'null or {page, space}',
      );
    case 'eventLinkTargetValue':
      if (comparing) throw bad('compared with in or notIn');
      return all((v) => isObject(v) && typeof v.kind === 'string', 'content references');
    case 'visitorGeoPoint':
      if (comparing) throw bad('compared with in or notIn');
      return all((v) => v === null || (isObject(v) && typeof v.latitude === 'number' && typeof v.longitude === 'number'), 'null or points');
    default:
      return all((v) => typeof v === 'string' || v === null, 'strings');
  }
}
