import { newId } from '../domain/ids.ts';
import type { Em } from './orm.ts';
import { sql, textArray } from './sql.ts';

/**
 * Comments beyond plain entity CRUD (tables `comment`, `comment_reply`, `comment_reaction`; the
 * entities are in comment-entities.ts): reactions, counters, reply summaries and target pages.
 */

/** What a reaction is on: a comment or a reply. */
export type ReactionTarget = { commentId: string } | { replyId: string };

/**
 * Adds the user's reactions (an existing one keeps its first date) and removes others (removing
 * one never made does nothing).
 */
export async function changeReactions(em: Em, target: ReactionTarget, userId: string, added: string[], removed: string[]): Promise<void> {
  const column = 'commentId' in target ? 'comment_id' : 'reply_id';
  const id = 'commentId' in target ? target.commentId : target.replyId;
  const now = new Date();
  for (const emoji of new Set(added)) {
    await sql(
      em,
      `insert into comment_reaction (id, ${column}, user_id, emoji, reacted_at) values (?, ?, ?, ?, ?)
       on conflict (${column}, user_id, emoji) where ${column} is not null do nothing`,
      [newId(), id, userId, emoji, now],
    );
  }
  if (removed.length > 0) {
    await sql(em, `delete from comment_reaction where ${column} = ? and user_id = ? and emoji = any(?::text[])`, [
      id,
      userId,
      textArray(removed),
    ]);
  }
}

/**
 * Open (unresolved) comments per space (on its content, not inside change requests) or per change
 * request: one query; every given id is in the map (0 when none).
 */
export async function countOpenComments(em: Em, column: 'space_id' | 'change_request_id', ids: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(ids.map((id) => [id, 0]));
  if (ids.length === 0) return counts;
  const rows = await sql<{ id: string; n: number }>(
    em,
    `select ${column} as id, count(*)::int as n from comment
      where ${column} = any(?::text[]) and resolved_at is null${column === 'space_id' ? ' and change_request_id is null' : ''}
      group by ${column}`,
    [textArray(ids)],
  );
  for (const row of rows) counts.set(row.id, Number(row.n));
  return counts;
}

export interface ReplierRow {
  comment_id: string;
  posted_by: string | null;
  n: number;
  updated_at: Date | string;
}

/** Replies to each comment per author, with the author's last reply or edit, latest first per comment. */
export async function repliersOf(em: Em, commentIds: string[]): Promise<ReplierRow[]> {
  if (commentIds.length === 0) return [];
  return sql<ReplierRow>(
    em,
    `select comment_id, posted_by, count(*)::int as n, max(coalesce(edited_at, posted_at)) as updated_at
       from comment_reply where comment_id = any(?::text[])
      group by comment_id, posted_by
      order by comment_id, updated_at desc`,
    [textArray(commentIds)],
  );
}

export interface TargetPageRow {
  comment_id: string;
  page_id: string;
  meta: Record<string, unknown> | null;
  in_current: boolean;
  changed: boolean;
  path: string | null;
}

/**
 * The target page of each comment, as it is in the current revision of the comment's scope (or,
 * when it is gone from there, as it was when the comment was posted), with its path; `changed`
 * once the page was removed or its content changed since the comment was posted.
 */
export async function targetPagesOf(em: Em, commentIds: string[]): Promise<TargetPageRow[]> {
  if (commentIds.length === 0) return [];
  return sql<TargetPageRow>(
    em,
    `with recursive c as (
       select c.id as comment_id, c.page_id, c.revision_id as posted_revision,
              coalesce(cr.revision_id, s.revision_id) as current_revision
         from comment c
         join space s on s.id = c.space_id
         left join change_request cr on cr.id = c.change_request_id
        where c.id = any(?::text[]) and c.page_id is not null
     ), pick as (
       select c.comment_id, c.page_id,
              case when cur.page_id is not null then c.current_revision else c.posted_revision end as revision_id,
              coalesce(cur.meta, old.meta) as meta,
              cur.page_id is not null as in_current,
              (cur.page_id is null or (old.page_id is not null and old.document_hash <> cur.document_hash)) as changed
         from c
         left join revision_page cur on cur.revision_id = c.current_revision and cur.page_id = c.page_id
         left join revision_page old on old.revision_id = c.posted_revision and old.page_id = c.page_id
     ), up as (
       select pick.comment_id, rp.revision_id, rp.parent_id, rp.meta->>'slug' as slug, 0 as depth
         from pick join revision_page rp on rp.revision_id = pick.revision_id and rp.page_id = pick.page_id
       union all
       select up.comment_id, rp.revision_id, rp.parent_id, rp.meta->>'slug', up.depth + 1
         from up join revision_page rp on rp.revision_id = up.revision_id and rp.page_id = up.parent_id
        where up.depth < 100
     )
     select pick.comment_id, pick.page_id, pick.meta, pick.in_current, pick.changed,
            (select string_agg(coalesce(up.slug, ''), '/' order by up.depth desc) from up where up.comment_id = pick.comment_id) as path
       from pick`,
    [textArray(commentIds)],
  );
}
