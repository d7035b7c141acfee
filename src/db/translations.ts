import { sql } from 'kysely';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import type { TranslationSettings } from './settings-entities.ts';

/** Translation settings of organizations (translation_settings). */

/** Translation settings as the API presents them: the entity's fields, read as a plain row. */
export type TranslationRow = TranslationSettings;

/** The fields an admin sets. */
export type TranslationChanges = Partial<
  Pick<TranslationSettings, 'title' | 'languages' | 'sourceSpaceId' | 'sourceLanguage' | 'language' | 'instructions'>
>;

/** A JSON value (or SQL null) for a jsonb column, sent as its JSON text. */
function jsonbOrNull<T>(value: T | null) {
  return value === null ? null : sql<T>`${JSON.stringify(value)}::jsonb`;
}

/**
 * A translation settings row with its times as Dates. The driver hands `timestamptz` over as text (the ORM's type parsers
 * keep it raw), whatever the row type says: every row read here goes through this, and so must
 * the rows of `translationListing` before they are presented.
 */
export function translationRow(row: Read<TranslationRow>): TranslationRow {
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

function translations(em: Em) {
  return db(em)
    .selectFrom('translation_settings')
    .select([
      'id',
      'organization_id as organizationId',
      'title',
      'languages',
      'source_space_id as sourceSpaceId',
      'source_language as sourceLanguage',
      'language',
      'instructions',
      'created_at as createdAt',
      'updated_at as updatedAt',
    ]);
}

/** The translation settings of an organization as a listing, oldest first. */
export function translationListing(em: Em, organizationId: string): Listing<Read<TranslationRow>> {
  return {
    query: translations(em).where('organization_id', '=', organizationId),
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** Translation settings of the organization. */
export async function findTranslation(em: Em, organizationId: string, id: string): Promise<TranslationRow | undefined> {
  const row = await translations(em).where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
  return row && translationRow(row);
}

/** Creates translation settings. */
export async function createTranslation(em: Em, settings: TranslationRow): Promise<TranslationRow> {
  await db(em)
    .insertInto('translation_settings')
    .values({
      id: settings.id,
      organization_id: settings.organizationId,
      title: settings.title,
      languages: settings.languages,
      source_space_id: settings.sourceSpaceId,
      source_language: settings.sourceLanguage,
      language: settings.language,
      instructions: jsonbOrNull(settings.instructions),
      created_at: settings.createdAt,
      updated_at: settings.updatedAt,
    })
    .execute();
  return settings;
}

/** Applies `changes` (and the update time); returns the settings as read back. */
export async function updateTranslation(em: Em, id: string, changes: TranslationChanges, at: Date): Promise<TranslationRow> {
  await db(em)
    .updateTable('translation_settings')
    .set({
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.languages !== undefined ? { languages: changes.languages } : {}),
      ...(changes.sourceSpaceId !== undefined ? { source_space_id: changes.sourceSpaceId } : {}),
      ...(changes.sourceLanguage !== undefined ? { source_language: changes.sourceLanguage } : {}),
      ...(changes.language !== undefined ? { language: changes.language } : {}),
      ...(changes.instructions !== undefined ? { instructions: jsonbOrNull(changes.instructions) } : {}),
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
  return translationRow(await translations(em).where('id', '=', id).executeTakeFirstOrThrow());
}

/** Removes translation settings. */
export async function deleteTranslation(em: Em, id: string): Promise<void> {
  await db(em).deleteFrom('translation_settings').where('id', '=', id).execute();
}
