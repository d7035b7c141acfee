import type { Ctx } from '../context.ts';
import { urlsFor } from '../object-urls.ts';
import { presentUser } from './present.ts';

/** The authenticated user, as authentication found them. */
export function currentUser(ctx: Ctx) {
  return presentUser(ctx.caller.user, urlsFor(ctx.deps.config.publicUrl));
}
