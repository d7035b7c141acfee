import type { Em } from './orm.ts';
import { sql, textArray } from './sql.ts';

/** Custom field values of spaces (space_custom_field_value) beyond plain entity CRUD. */

/**
 * Applies a batch of value changes to one space: removes the values of the `clears` fields, then
 * sets each of `writes` (inserted or replaced). Every statement runs in the transaction of `tx`:
 * call it inside one, so the batch is applied whole or not at all.
 */
export async function writeSpaceValues(
  tx: Em,
  spaceId: string,
  clears: string[],
  writes: { fieldId: string; value: unknown }[],
  at: Date,
): Promise<void> {
  if (clears.length > 0) {
    await sql(tx, 'delete from space_custom_field_value where space_id = ? and custom_field_id = any(?::text[])', [
      spaceId,
      textArray(clears),
    ]);
  }
  for (const write of writes) {
    await sql(
      tx,
      `insert into space_custom_field_value (space_id, custom_field_id, value, updated_at) values (?, ?, ?::jsonb, ?)
       on conflict (space_id, custom_field_id) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [spaceId, write.fieldId, JSON.stringify(write.value), at],
    );
  }
}
