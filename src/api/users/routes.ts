import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { UserParams, UserSchema } from './schemas.ts';
import { currentUser, userById } from './service.ts';

/** Users: HTTP only. */
export const userRoutes: RoutePlugin = async (app) => {
  app.get(
    '/v1/user',
    {
      schema: { tags: ['users'], summary: 'Get the authenticated user', response: { 200: UserSchema, ...errors() } },
    },
    async (request) => currentUser(ctxOf(request)),
  );

  app.get(
    '/v1/users/:userId',
    {
      config: { visitor: true },
      schema: {
        tags: ['users'],
        summary: 'Get a user who shares an organization with the caller',
        params: UserParams,
        response: { 200: UserSchema, ...errors(404) },
      },
    },
    async (request) => userById(ctxOf(request), request.params.userId),
  );
};
