import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import {
  ContentByUrl,
  EmbedSchema,
  PublishedLookup,
  ResolvePublishedBody,
  ResolvePublishedQuery,
  SpaceEmbedParams,
  UrlQuery,
} from './schemas.ts';
import { contentByUrl, embedByUrl, embedInSpace, resolvePublished, resolvePublishedAnswer } from './service.ts';
import { sendJson } from '../json-answer.ts';

/** URL resolution: HTTP only. The rules are in ./service.ts. */
export const urlRoutes: RoutePlugin = async (app) => {
  const tags = ['urls'];

  app.post(
    '/v1/urls/published',
    {
      schema: {
        tags,
        summary: 'Resolve a published URL for a visitor',
        body: ResolvePublishedBody,
        response: { 200: PublishedLookup, ...errors(404) },
      },
      // The renderer's own credentials: a site lookup token, or the visitor's token of the site.
      config: { siteLookup: true, visitor: true },
    },
    // A lookup's answer is kept between writes (see resolvePublishedAnswer), serialized as this route serializes.
    async (request, reply) =>
      sendJson(
        request,
        reply,
        await resolvePublishedAnswer(
          ctxOf(request),
          {
            url: request.body.url,
            redirectOnError: request.body.redirectOnError,
            jwtToken: request.body.visitor?.jwtToken,
            unsignedClaims: request.body.visitor?.unsignedClaims,
            visitorType: request.body.visitor?.type,
          },
          (answer) => reply.serialize(answer),
        ),
      ),
  );

  app.get(
    '/v1/urls/published',
    {
      schema: {
        tags,
        summary: 'Resolve a published URL (deprecated: use POST)',
        deprecated: true,
        querystring: ResolvePublishedQuery,
        response: { 200: PublishedLookup, ...errors(404) },
      },
      config: { siteLookup: true, visitor: true },
    },
    async (request, reply) => {
      reply.header('deprecation', 'true').header('link', '</v1/urls/published>; rel="successor-version"; type="POST"');
      return resolvePublished(ctxOf(request), {
        url: request.query.url,
        redirectOnError: request.query.redirectOnError,
        jwtToken: request.query.visitorAuthToken,
      });
    },
  );

  app.get(
    '/v1/urls/content',
    {
      schema: {
        tags,
        summary: 'Resolve an app URL to its collection, space or page',
        querystring: UrlQuery,
        response: { 200: ContentByUrl, ...errors(404) },
      },
    },
    async (request) => contentByUrl(ctxOf(request), request.query.url),
  );

  app.get(
    '/v1/urls/embed',
    {
      schema: {
        tags,
        summary: 'Describe a published page for an embed',
        querystring: UrlQuery,
        response: { 200: EmbedSchema, ...errors(404) },
      },
    },
    async (request) => embedByUrl(ctxOf(request), request.query.url),
  );

  app.get(
    '/v1/spaces/:spaceId/embed',
    {
      config: { visitor: true },
      schema: {
        tags: ['space content'],
        summary: 'Describe a URL embedded in the content of a space',
        params: SpaceEmbedParams,
        querystring: UrlQuery,
        response: { 200: EmbedSchema, ...errors(404) },
      },
    },
    async (request) => embedInSpace(ctxOf(request), request.params.spaceId, request.query.url),
  );
};
