import type { Static } from 'typebox';
import {
  createTranslation as insertTranslation,
  deleteTranslation as removeTranslation,
  findTranslation,
  translationRow,
  translationListing,
  updateTranslation as writeTranslation,
  type TranslationChanges,
} from '../../db/translations.ts';
import { newId } from '../../domain/ids.ts';
import { canonicalLanguages } from '../../domain/languages.ts';
import type { Role } from '../../domain/roles.ts';
import { loadSpace, requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, HttpError, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { urlsFor } from '../object-urls.ts';
import { presentTranslation } from './present.ts';
import { MAX_INSTRUCTIONS_CHARS, type TranslationBody } from './schemas.ts';

/**
 * Translation settings of an organization. Members with a role read them; admins create, replace
 * and delete them. Languages are BCP 47 codes, stored canonicalised.
 */

type Body = Static<typeof TranslationBody>;

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

/** The caller's role in the organization, which must be at least `min` (guests hold no settings). */
async function organizationRole(ctx: Ctx, organizationId: string, min: Role, action: string) {
  return (await requireOrganization(ctx, organizationId, min, action)).role;
}

const READ = 'read translation settings';
const MANAGE = 'manage translation settings';

async function loadSettings(ctx: Ctx, organizationId: string, id: string) {
  const settings = await findTranslation(ctx.em, organizationId, id);
  if (!settings) throw notFound('Translation settings');
  return settings;
}

/** Body fields after the checks the schema cannot make: language codes, the source space, the size of instructions. */
async function checkedFields(ctx: Ctx, organizationId: string, body: Body) {
  let languages: string[] | undefined;
  if (body.languages !== undefined) {
    const check = canonicalLanguages(body.languages);
    if (!check.ok) throw badRequest(check.message);
    languages = check.languages;
  }
  let sourceSpaceId: string | undefined;
  if (body.source !== undefined) {
    const { space } = await loadSpace(ctx.em, ctx.caller, body.source.space).catch((error: unknown) => {
      throw error instanceof HttpError && error.statusCode === 404 ? notFound('source.space: space') : error;
    });
    if (space.organizationId !== organizationId) throw notFound('source.space: space');
    sourceSpaceId = space.id;
  }
  if (body.instructions !== undefined && JSON.stringify(body.instructions).length > MAX_INSTRUCTIONS_CHARS) {
    throw badRequest(`instructions must be at most ${MAX_INSTRUCTIONS_CHARS} characters of JSON`);
  }
  return {
    title: body.title,
    languages,
    sourceSpaceId,
    sourceLanguage: body.source?.language,
    language: body.language,
    instructions: body.instructions,
  };
}

export async function listTranslations(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const role = await organizationRole(ctx, organizationId, 'read', READ);
  return paginate(ctx.em, translationListing(ctx.em, organizationId), query, (rows) =>
    rows.map((s) => presentTranslation(translationRow(s), role, urlsOf(ctx))),
  );
}

export async function createTranslation(ctx: Ctx, organizationId: string, body: Body) {
  const role = await organizationRole(ctx, organizationId, 'admin', MANAGE);
  const fields = await checkedFields(ctx, organizationId, body);
  const now = new Date();
  const settings = await insertTranslation(ctx.em, {
    id: newId(),
    organizationId,
    title: fields.title,
    languages: fields.languages ?? [],
    sourceSpaceId: fields.sourceSpaceId ?? null,
    sourceLanguage: fields.sourceLanguage ?? null,
    language: fields.language ?? null,
    instructions: fields.instructions ?? null,
    createdAt: now,
    updatedAt: now,
  });
  return presentTranslation(settings, role, urlsOf(ctx));
}

export async function getTranslation(ctx: Ctx, organizationId: string, translationId: string) {
  const role = await organizationRole(ctx, organizationId, 'read', READ);
  return presentTranslation(await loadSettings(ctx, organizationId, translationId), role, urlsOf(ctx));
}

/** Replaces the title and every field given; absent fields stay. */
export async function updateTranslation(ctx: Ctx, organizationId: string, translationId: string, body: Body) {
  const role = await organizationRole(ctx, organizationId, 'admin', MANAGE);
  const settings = await loadSettings(ctx, organizationId, translationId);
  const fields = await checkedFields(ctx, organizationId, body);
  const changes: TranslationChanges = { title: fields.title };
  if (fields.languages !== undefined) changes.languages = fields.languages;
  if (fields.sourceSpaceId !== undefined) {
    changes.sourceSpaceId = fields.sourceSpaceId;
    changes.sourceLanguage = fields.sourceLanguage ?? null;
  }
  if (fields.language !== undefined) changes.language = fields.language;
  if (fields.instructions !== undefined) changes.instructions = fields.instructions;
  return presentTranslation(await writeTranslation(ctx.em, settings.id, changes, new Date()), role, urlsOf(ctx));
}

export async function deleteTranslation(ctx: Ctx, organizationId: string, translationId: string): Promise<void> {
  await organizationRole(ctx, organizationId, 'admin', MANAGE);
  const settings = await loadSettings(ctx, organizationId, translationId);
  await removeTranslation(ctx.em, settings.id);
}
