import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/** Round-trips one trivial query: resolves when the database answers (the readiness probe). */
export async function pingDatabase(em: Em): Promise<void> {
  await sql(em, 'select 1');
}
