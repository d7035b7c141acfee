import type { Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Em } from '../../db/orm.ts';
import { TranslationSettings } from '../../db/settings-entities.ts';
import { newId } from '../../domain/ids.ts';
import { canonicalLanguages } from '../../domain/languages.ts';
import type { Role } from '../../domain/roles.ts';
import { loadOrganization, loadSpace, requireRole } from '../access.ts';
import { badRequest, HttpError, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentTranslation } from './present.ts';
import { MAX_INSTRUCTIONS_CHARS, OrgParams, TranslationBody, TranslationList, TranslationParams, TranslationSchema } from './schemas.ts';

type Body = Static<typeof TranslationBody>;
type Ref = Static<typeof TranslationParams>;

/**
 * Translation settings of an organization. Members with a role read them; admins create, replace
 * and delete them. Languages are BCP 47 codes, stored canonicalised.
 */
export async function translationRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);
  const tags = ['translations'];

  /** The organization and the caller's role, which must be at least `read` (guests hold no settings). */
  async function organizationFor(request: FastifyRequest, organizationId: string, min: Role, action: string) {
    const { role } = await loadOrganization(request.em, request.caller, organizationId);
    requireRole(role, min, action);
    return role;
  }

  app.get('/v1/orgs/:organizationId/translations', {
    schema: { tags, summary: 'List the translation settings of an organization', params: OrgParams, querystring: ListQuery, response: { 200: TranslationList, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const role = await organizationFor(request, organizationId, 'read', 'read translation settings');
    return paginate(request.em, TranslationSettings, { organizationId }, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], request.query as object, (s) =>
      presentTranslation(s, role, urls),
    );
  });

  app.post('/v1/orgs/:organizationId/translations', {
    schema: { tags, summary: 'Create translation settings', params: OrgParams, body: TranslationBody, response: { 201: TranslationSchema, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const role = await organizationFor(request, organizationId, 'admin', 'manage translation settings');
    const fields = await checkedFields(request, organizationId, request.body as Body);
    const now = new Date();
    const settings = request.em.create(TranslationSettings, {
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
    await request.em.flush();
    return reply.status(201).send(presentTranslation(settings, role, urls));
  });

  app.get('/v1/orgs/:organizationId/translations/:translationId', {
    schema: { tags, summary: 'Get translation settings', params: TranslationParams, response: { 200: TranslationSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, translationId } = request.params as Ref;
    const role = await organizationFor(request, organizationId, 'read', 'read translation settings');
    return presentTranslation(await loadSettings(request.em, organizationId, translationId), role, urls);
  });

  app.put('/v1/orgs/:organizationId/translations/:translationId', {
    schema: {
      tags,
      summary: 'Update translation settings (title required; other fields given replace, absent ones stay)',
      params: TranslationParams,
      body: TranslationBody,
      response: { 200: TranslationSchema, ...errors(403, 404) },
    },
  }, async (request) => {
    const { organizationId, translationId } = request.params as Ref;
    const role = await organizationFor(request, organizationId, 'admin', 'manage translation settings');
    const settings = await loadSettings(request.em, organizationId, translationId);
    const fields = await checkedFields(request, organizationId, request.body as Body);
    settings.title = fields.title;
    if (fields.languages !== undefined) settings.languages = fields.languages;
    if (fields.sourceSpaceId !== undefined) {
      settings.sourceSpaceId = fields.sourceSpaceId;
      settings.sourceLanguage = fields.sourceLanguage ?? null;
    }
    if (fields.language !== undefined) settings.language = fields.language;
    if (fields.instructions !== undefined) settings.instructions = fields.instructions;
    settings.updatedAt = new Date();
    await request.em.flush();
    return presentTranslation(settings, role, urls);
  });

  app.delete('/v1/orgs/:organizationId/translations/:translationId', {
    schema: { tags, summary: 'Delete translation settings', params: TranslationParams, response: { 205: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId, translationId } = request.params as Ref;
    await organizationFor(request, organizationId, 'admin', 'manage translation settings');
    const settings = await loadSettings(request.em, organizationId, translationId);
    await request.em.nativeDelete(TranslationSettings, { id: settings.id });
    return reply.status(205).send();
  });
}

async function loadSettings(em: Em, organizationId: string, id: string) {
  const settings = await em.findOne(TranslationSettings, { id, organizationId });
  if (!settings) throw notFound('Translation settings');
  return settings;
}

/** Body fields after the checks the schema cannot make: language codes, the source space, the size of instructions. */
async function checkedFields(request: FastifyRequest, organizationId: string, body: Body) {
  let languages: string[] | undefined;
  if (body.languages !== undefined) {
    const check = canonicalLanguages(body.languages);
    if (!check.ok) throw badRequest(check.message);
    languages = check.languages;
  }
  let sourceSpaceId: string | undefined;
  if (body.source !== undefined) {
    const { space } = await loadSpace(request.em, request.caller, body.source.space).catch((error: unknown) => {
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
    instructions: body.instructions as Record<string, unknown> | undefined,
  };
}
