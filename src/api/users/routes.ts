import type { FastifyInstance } from 'fastify';
import { errors, UserRef } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentUser } from './present.ts';

export async function userRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);

  app.get('/v1/user', {
    schema: { tags: ['users'], summary: 'Get the authenticated user', response: { 200: UserRef, ...errors() } },
  }, async (request) => presentUser(request.caller.user, urls));
}
