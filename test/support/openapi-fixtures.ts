import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';

/**
 * OpenAPI documents served over HTTP on 127.0.0.1 for processing tests (the worker reaches them
 * through FETCH_ALLOW_HOSTS=127.0.0.1, set by scripts/test.ts).
 */

export const petstore30 = {
  openapi: '3.0.3',
  info: { title: 'Petstore 3.0', version: '1.0.0' },
  paths: {
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'A pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
      },
    },
  },
  components: { schemas: { Pet: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, name: { type: 'string' } } } } },
};

export const petstore31 = {
  openapi: '3.1.0',
  info: { title: 'Petstore 3.1', version: '2.0.0' },
  paths: { '/pets': { get: { operationId: 'listPets', responses: { 200: { description: 'Pets' } } } } },
  webhooks: { newPet: { post: { responses: { 200: { description: 'ok' } } } } },
};

export const swagger20 = {
  swagger: '2.0',
  info: { title: 'Petstore 2.0', version: '1.0.0' },
  basePath: '/v1',
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        produces: ['application/json'],
        responses: { 200: { description: 'Pets', schema: { type: 'array', items: { $ref: '#/definitions/Pet' } } } },
      },
    },
  },
  definitions: { Pet: { type: 'object', properties: { id: { type: 'integer' } } } },
};

/** Parses, but is not a valid definition: `info` is missing and a response has no description. */
export const invalid30 = { openapi: '3.0.3', paths: { '/x': { get: { responses: { 200: {} } } } } };

/** An entry document whose paths and schemas live in other documents (relative, nested, up a level). */
export const multiFileEntry = `openapi: 3.1.0
info:
  title: Split spec
  version: 1.0.0
paths:
  /pets:
    $ref: ./paths/pets.yaml
components:
  schemas:
    Pet:
      $ref: ../common/schemas.json#/Pet
`;
export const multiFilePets = `get:
  operationId: listPets
  responses:
    '200':
      description: Pets
      content:
        application/json:
          schema:
            type: array
            items:
              $ref: ../../common/schemas.json#/Pet
`;
export const multiFileSchemas = {
  Pet: { type: 'object', properties: { id: { type: 'string' }, owner: { $ref: '#/Owner' } } },
  Owner: { type: 'string' },
};

export interface FixtureServer {
  base: string;
  /** Documents served by path; change them between fetches. */
  docs: Map<string, { body: string; type: string }>;
  /** Requests seen, by path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export const json = (value: unknown) => ({ body: JSON.stringify(value, null, 2), type: 'application/json' });
export const yaml = (value: unknown) => ({ body: typeof value === 'string' ? value : toYaml(value), type: 'application/yaml' });

export async function startFixtureServer(): Promise<FixtureServer> {
  const docs = new Map<string, { body: string; type: string }>();
  const hits = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/slow.json') {
      // Answers long after any fetch deadline of the tests.
      const timer = setTimeout(() => res.end(JSON.stringify(petstore30)), 60_000);
      timers.add(timer);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/huge.json') {
      // More than FETCH_MAX_BYTES (10 MiB by default), streamed without a length.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 12) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    const doc = docs.get(path);
    if (!doc) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    res.writeHead(200, { 'content-type': doc.type }).end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    docs,
    hits,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
