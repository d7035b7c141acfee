import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { OrgParams, TranslationBody, TranslationList, TranslationParams, TranslationSchema } from './schemas.ts';
import { createTranslation, deleteTranslation, getTranslation, listTranslations, updateTranslation } from './service.ts';

/** Translation settings: HTTP only. The rules are in ./service.ts. */
export const translationRoutes: RoutePlugin = async (app) => {
  const tags = ['translations'];

  app.get(
    '/v1/orgs/:organizationId/translations',
    {
      schema: {
        tags,
        summary: 'List the translation settings of an organization',
        params: OrgParams,
        querystring: ListQuery,
        response: { 200: TranslationList, ...errors(403, 404) },
      },
    },
    async (request) => listTranslations(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/orgs/:organizationId/translations',
    {
      schema: {
        tags,
        summary: 'Create translation settings',
        params: OrgParams,
        body: TranslationBody,
        response: { 201: TranslationSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createTranslation(ctxOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/v1/orgs/:organizationId/translations/:translationId',
    {
      schema: {
        tags,
        summary: 'Get translation settings',
        params: TranslationParams,
        response: { 200: TranslationSchema, ...errors(403, 404) },
      },
    },
    async (request) => getTranslation(ctxOf(request), request.params.organizationId, request.params.translationId),
  );

  app.put(
    '/v1/orgs/:organizationId/translations/:translationId',
    {
      schema: {
        tags,
        summary: 'Update translation settings (title required; other fields given replace, absent ones stay)',
        params: TranslationParams,
        body: TranslationBody,
        response: { 200: TranslationSchema, ...errors(403, 404) },
      },
    },
    async (request) => updateTranslation(ctxOf(request), request.params.organizationId, request.params.translationId, request.body),
  );

  app.delete(
    '/v1/orgs/:organizationId/translations/:translationId',
    {
      schema: {
        tags,
        summary: 'Delete translation settings',
        params: TranslationParams,
        response: { 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await deleteTranslation(ctxOf(request), request.params.organizationId, request.params.translationId);
      return reply.status(205).send();
    },
  );
};
