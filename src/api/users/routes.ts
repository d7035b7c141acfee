import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { UserSchema } from './schemas.ts';
import { currentUser } from './service.ts';

/** The authenticated user: HTTP only. */
export const userRoutes: RoutePlugin = async (app) => {
  app.get(
    '/v1/user',
    {
      schema: { tags: ['users'], summary: 'Get the authenticated user', response: { 200: UserSchema, ...errors() } },
    },
    async (request) => currentUser(ctxOf(request)),
  );
};
