import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { CreateLookupTokenBody, LookupTokenList, LookupTokenOrgParams, LookupTokenParams, LookupTokenSchema } from './schemas.ts';
import { createLookupToken, listLookupTokens, revokeLookupToken } from './service.ts';

/** Site lookup tokens of an organization: HTTP only. The rules are in ./service.ts. */
export const siteLookupTokenRoutes: RoutePlugin = async (app) => {
  const tags = ['sites'];
  const base = '/v1/orgs/:organizationId/site-lookup-tokens';

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the site lookup tokens of an organization',
        params: LookupTokenOrgParams,
        querystring: ListQuery,
        response: { 200: LookupTokenList, ...errors(403, 404) },
      },
    },
    async (request) => listLookupTokens(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Create a token that only resolves the published URLs of this organization (its secret is answered only this once)',
        params: LookupTokenOrgParams,
        body: CreateLookupTokenBody,
        response: { 201: LookupTokenSchema, ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createLookupToken(ctxOf(request), request.params.organizationId, request.body)),
  );

  app.delete(
    `${base}/:lookupTokenId`,
    {
      schema: { tags, summary: 'Revoke a site lookup token', params: LookupTokenParams, response: { 205: NoContent, ...errors(403, 404) } },
    },
    async (request, reply) => {
      await revokeLookupToken(ctxOf(request), request.params.organizationId, request.params.lookupTokenId);
      return reply.status(205).send();
    },
  );
};
