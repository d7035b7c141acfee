import type { Em } from '../../db/orm.ts';
import { sql } from '../../db/sql.ts';
import { NO_COUNTERS, type SpaceCounters } from './present.ts';
import { countOpenComments } from '../comments/service.ts';

/** Live counts for the given spaces: change requests by status and open comments, two queries in all. */
export async function spaceCounters(em: Em, spaceIds: string[]): Promise<Map<string, SpaceCounters>> {
  const out = new Map<string, SpaceCounters>();
  if (spaceIds.length === 0) return out;
  const ids = JSON.stringify(spaceIds);
  const [changeRequests, comments] = await Promise.all([
    sql<{ space_id: string; total: string; open: string; draft: string }>(
      em,
      `select space_id, count(*) as total, count(*) filter (where status = 'open') as open, count(*) filter (where status = 'draft') as draft
         from change_request where space_id in (select jsonb_array_elements_text(?::jsonb)) group by space_id`,
      [ids],
    ),
    countOpenComments(em, spaceIds),
  ]);
  for (const id of spaceIds) out.set(id, { ...NO_COUNTERS });
  for (const row of changeRequests) {
    Object.assign(out.get(row.space_id)!, { changeRequests: Number(row.total), changeRequestsOpen: Number(row.open), changeRequestsDraft: Number(row.draft) });
  }
  for (const [spaceId, open] of comments) out.get(spaceId)!.comments = open;
  return out;
}
