import { sql } from 'kysely';
import { isUniqueViolation } from './health.ts';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import type { CustomField } from './settings-entities.ts';

/** Custom field definitions of organizations (custom_field) and their values on spaces (space_custom_field_value). */

/** A definition as the API presents it: the entity's fields, read as a plain row. */
export type CustomFieldRow = CustomField;

/** The definition fields an admin may change after creating it. */
export type CustomFieldChanges = Partial<Pick<CustomField, 'title' | 'description' | 'placeholder' | 'options'>>;

/** A JSON value for a jsonb column: sent as its JSON text (node-pg would send an array as a PostgreSQL array). */
function jsonb<T>(value: T) {
  return sql<T>`${JSON.stringify(value)}::jsonb`;
}

/**
 * A definition row with its times as Dates. The driver hands `timestamptz` over as text (the ORM's type parsers
 * keep it raw), whatever the row type says: every row read here goes through this, and so must
 * the rows of `fieldListing` before they are presented.
 */
export function customFieldRow(row: Read<CustomFieldRow>): CustomFieldRow {
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

function fields(em: Em) {
  return db(em)
    .selectFrom('custom_field')
    .select([
      'id',
      'organization_id as organizationId',
      'name',
      'type',
      'title',
      'description',
      'placeholder',
      'options',
      'created_at as createdAt',
      'updated_at as updatedAt',
    ]);
}

/** The definitions of an organization as a listing, oldest first. */
export function fieldListing(em: Em, organizationId: string): Listing<Read<CustomFieldRow>> {
  return {
    query: fields(em).where('organization_id', '=', organizationId),
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** Every definition of an organization, oldest first. */
export async function fieldsOf(em: Em, organizationId: string): Promise<CustomFieldRow[]> {
  const rows = await fields(em).where('organization_id', '=', organizationId).orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  return rows.map(customFieldRow);
}

/** The definitions of an organization with one of these names. */
export async function fieldsNamed(em: Em, organizationId: string, names: string[]): Promise<CustomFieldRow[]> {
  if (names.length === 0) return [];
  const rows = await fields(em).where('organization_id', '=', organizationId).where('name', 'in', names).execute();
  return rows.map(customFieldRow);
}

/** The definition of an organization with this name. */
export async function findField(em: Em, organizationId: string, name: string): Promise<CustomFieldRow | undefined> {
  const row = await fields(em).where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
  return row && customFieldRow(row);
}

/** Creates a definition; undefined when the organization already has one of that name. */
export async function createField(em: Em, field: CustomFieldRow): Promise<CustomFieldRow | undefined> {
  try {
    await db(em)
      .insertInto('custom_field')
      .values({
        id: field.id,
        organization_id: field.organizationId,
        name: field.name,
        type: field.type,
        title: field.title,
        description: field.description,
        placeholder: field.placeholder,
        options: field.options,
        created_at: field.createdAt,
        updated_at: field.updatedAt,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  return field;
}

/** Applies `changes` to a definition (and its update time); returns it as read back. */
export async function updateField(em: Em, id: string, changes: CustomFieldChanges, at: Date): Promise<CustomFieldRow> {
  await db(em)
    .updateTable('custom_field')
    .set({
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.placeholder !== undefined ? { placeholder: changes.placeholder } : {}),
      ...(changes.options !== undefined ? { options: changes.options } : {}),
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
  return customFieldRow(await fields(em).where('id', '=', id).executeTakeFirstOrThrow());
}

/** Removes a definition; its values go with it (space_custom_field_value cascades). */
export async function deleteField(em: Em, id: string): Promise<void> {
  await db(em).deleteFrom('custom_field').where('id', '=', id).execute();
}

/**
 * Rewrites every space's value of a field through `keep`: undefined removes the value, anything
 * else replaces it (when it differs). Call it inside a transaction.
 */
export async function pruneFieldValues(tx: Em, fieldId: string, keep: (value: unknown) => unknown): Promise<void> {
  const values = await db(tx)
    .selectFrom('space_custom_field_value')
    .select(['space_id', 'value'])
    .where('custom_field_id', '=', fieldId)
    .execute();
  const removed: string[] = [];
  for (const row of values) {
    const kept = keep(row.value);
    if (kept === undefined) removed.push(row.space_id);
    else if (JSON.stringify(kept) !== JSON.stringify(row.value)) {
      await db(tx)
        .updateTable('space_custom_field_value')
        .set({ value: jsonb(kept) })
        .where('space_id', '=', row.space_id)
        .where('custom_field_id', '=', fieldId)
        .execute();
    }
  }
  if (removed.length > 0) {
    await db(tx).deleteFrom('space_custom_field_value').where('custom_field_id', '=', fieldId).where('space_id', 'in', removed).execute();
  }
}

/** The values of a space, by field id. */
export async function spaceValues(em: Em, spaceId: string): Promise<Map<string, unknown>> {
  const rows = await db(em)
    .selectFrom('space_custom_field_value')
    .select(['custom_field_id', 'value'])
    .where('space_id', '=', spaceId)
    .execute();
  return new Map(rows.map((r) => [r.custom_field_id, r.value]));
}

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
    await db(tx).deleteFrom('space_custom_field_value').where('space_id', '=', spaceId).where('custom_field_id', 'in', clears).execute();
  }
  if (writes.length > 0) {
    await db(tx)
      .insertInto('space_custom_field_value')
      .values(writes.map((w) => ({ space_id: spaceId, custom_field_id: w.fieldId, value: jsonb(w.value), updated_at: at })))
      .onConflict((oc) =>
        oc
          .columns(['space_id', 'custom_field_id'])
          .doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), updated_at: eb.ref('excluded.updated_at') })),
      )
      .execute();
  }
}
