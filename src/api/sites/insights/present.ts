import type { AggregateRow, SegmentRow } from '../../../db/insights.ts';
import type { ColumnRef } from '../../../domain/sites/insights-query.ts';

/** Site insights answers, as GitBook's schemas have them: pure. */

const COUNTS = new Set(['eventsCount', 'sessionsCount', 'visitorsCount', 'dayOfWeek', 'hourOfDay', 'eventAskResponseRating']);

/** One value as GitBook answers it: counts as numbers, times as ISO date-times, rating breakdowns with numbers. */
function presentValue(column: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (COUNTS.has(column)) return Number(value);
  if (column === 'datetime') return new Date(String(value)).toISOString();
  if (column === 'pageFeedbackRating' || column === 'askResponseRating' || column === 'visitorGeoPoint') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, k === 'h3' ? v : Number(v)]));
  }
  return value;
}

/** The rows of an aggregation as GitBook's columnar answer: one `{column, values}` per answered column. */
export function presentAggregation(output: ColumnRef[], rows: AggregateRow[]) {
  return {
    columns: output.map((c, i) => ({
      column: c.column,
      ...(c.column === 'visitorClaim' ? { claim: c.claim ?? '' } : {}),
      values: rows.map((row) => presentValue(c.column, row[`c${i}`])),
    })),
  };
}

/** A visitor segment: the visitors who share the same claims, titled by them. */
export function presentSegment(row: SegmentRow) {
  const claims = row.claims ?? {};
  const entries = Object.entries(claims);
  const title =
    entries.length === 0
      ? 'Visitors without claims'
      : entries
          .slice(0, 5)
          .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .join(', ');
  return { title, claims, events: row.events, visitors: row.visitors, sessions: row.sessions };
}
