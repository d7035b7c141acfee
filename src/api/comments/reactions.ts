import { changeReactions, type ReactionTarget } from '../../db/comments.ts';
import type { Em } from '../../db/orm.ts';
import { badRequest } from '../errors.ts';

/**
 * Applies a caller's reaction changes to a comment or a reply. Adding a reaction the caller already
 * made keeps the first one (and its date); removing one they never made does nothing.
 */
export async function applyReactions(
  em: Em,
  target: ReactionTarget,
  userId: string,
  added: string[] = [],
  removed: string[] = [],
): Promise<void> {
  const both = added.filter((e) => removed.includes(e));
  if (both.length > 0) throw badRequest(`addedReactions and removedReactions both name ${both.join(', ')}`);
  await changeReactions(em, target, userId, added, removed);
}
