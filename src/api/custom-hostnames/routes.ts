import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, NoContent } from '../schemas.ts';
import { CustomHostnameSchema, HostnameParams } from './schemas.ts';
import { getCustomHostname, removeCustomHostname, revalidateCustomHostname } from './service.ts';

/** Custom hostnames of sites: HTTP only. The rules are in ./service.ts. */
export const customHostnameRoutes: RoutePlugin = async (app) => {
  const tags = ['custom-hostnames'];
  const path = '/v1/custom-hostnames/:hostname';

  app.get(
    path,
    {
      schema: {
        tags,
        summary: 'Read a custom hostname and the status of its last DNS check (checked now when it never was)',
        params: HostnameParams,
        response: { 200: CustomHostnameSchema, ...errors(404) },
      },
    },
    async (request) => getCustomHostname(ctxOf(request), request.params.hostname),
  );

  app.patch(
    path,
    {
      schema: {
        tags,
        summary: "Check a custom hostname's DNS again",
        params: HostnameParams,
        response: { 204: NoContent, ...errors(404) },
      },
    },
    async (request, reply) => {
      await revalidateCustomHostname(ctxOf(request), request.params.hostname);
      return reply.status(204).send();
    },
  );

  app.delete(
    path,
    {
      schema: {
        tags,
        summary: 'Remove a custom hostname from its site',
        params: HostnameParams,
        response: { 205: NoContent, ...errors(404) },
      },
    },
    async (request, reply) => {
      await removeCustomHostname(ctxOf(request), request.params.hostname);
      return reply.status(205).send();
    },
  );
};
