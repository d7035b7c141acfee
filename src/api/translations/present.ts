import type { TranslationRow } from '../../db/translations.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import type { Urls } from '../object-urls.ts';

const EMPTY_DOCUMENT = { object: 'document' as const, data: {}, nodes: [] };
/** This service stores translation settings; it runs no translation, so every run counter stays at zero. */
const NO_RUNS = { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0, latestRunDuration: 0, latestPages: 0, latestWords: 0 };

export function presentTranslation(settings: TranslationRow, role: Role | null, urls: Urls) {
  return {
    object: 'translation' as const,
    id: settings.id,
    title: settings.title,
    languages: settings.languages,
    status: 'pending' as const,
    ...(settings.sourceSpaceId && settings.sourceLanguage
      ? { source: { space: settings.sourceSpaceId, language: settings.sourceLanguage as 'en' } }
      : {}),
    ...(settings.language ? { language: settings.language as 'en' } : {}),
    instructions: (settings.instructions ?? EMPTY_DOCUMENT) as typeof EMPTY_DOCUMENT,
    stats: NO_RUNS,
    createdAt: settings.createdAt.toISOString(),
    updatedAt: settings.updatedAt.toISOString(),
    permissions: { view: true, edit: atLeast(role, 'admin') },
    urls: urls.translation(settings.organizationId, settings.id),
  };
}
