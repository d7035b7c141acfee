import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { logger } from '../../src/lib/logger.ts';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../../src/config.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { buildApp } from '../../src/api/app.ts';
import { connectTemporal } from '../../src/temporal/client.ts';
import { createOrganization, findOrCreateUser, issueToken, setMembership } from '../../src/db/accounts.ts';
import type { Role } from '../../src/domain/roles.ts';
import { newId } from '../../src/domain/ids.ts';
import { checkAnswer } from './answer-check.ts';

/**
 * The API under test, in-process, on the real PostgreSQL and Temporal server that `npm test`
 * prepared (see scripts/test.ts). Requests go through Fastify's injector.
 */
export interface TestApp {
  app: FastifyInstance;
  orm: Orm;
  temporal: Client;
  config: Config;
  close(): Promise<void>;
}

/**
 * `options.log`: the API logs at debug level, as JSON lines appended to this array (what an
 * operator's log collector would receive), instead of not at all.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { log?: string[] } = {}): Promise<TestApp> {
  if (!process.env.DATABASE_URL || !process.env.TEMPORAL_ADDRESS) {
    throw new Error('Run the suite with `npm test`: it provides PostgreSQL and Temporal.');
  }
  // Tests send many requests with one token: the rate limit is off unless a test turns it on; so is
  // load shedding, as a test's own work shares the in-process API's event loop.
  // Git Sync requests some tests record without signalling them stay theirs: another file's app
  // does not send them again to the shared worker (test/api/git-sync.test.ts runs the resend itself).
  const config = loadConfig({
    ...process.env,
    PUBLIC_URL: 'http://docs.test',
    RATE_LIMIT_MAX: '0',
    OVERLOAD_EVENT_LOOP_DELAY: '0s',
    GIT_SYNC_RESEND_AFTER: '1h',
    ...env,
  });
  const orm = await initOrm({ databaseUrl: config.databaseUrl!, poolMax: 4 });
  const { client, connection } = await connectTemporal({ address: config.temporalAddress!, namespace: config.temporalNamespace });
  const lines = options.log;
  const destination = lines && new Writable({ write: (chunk, _encoding, done) => done(void lines.push(String(chunk))) });
  const app = await buildApp(
    { config, orm, temporal: client },
    {
      authCacheTtlMs: config.authCacheTtlMs,
      onAnswer: checkAnswer,
      ...(destination ? { logger: logger('debug', { pretty: false, destination }) } : {}),
    },
  );
  await app.ready();
  return {
    app,
    orm,
    temporal: client,
    config,
    close: async () => {
      await app.close();
      await connection.close();
      await orm.close();
    },
  };
}

export interface Response<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

/** A client bound to one token. */
export function client(app: FastifyInstance, token?: string) {
  const call = async (method: string, url: string, body?: unknown): Promise<Response> => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.body ? safeJson(res.body) : undefined, headers: res.headers };
  };
  return {
    get: (url: string) => call('GET', url),
    post: (url: string, body?: unknown) => call('POST', url, body),
    patch: (url: string, body?: unknown) => call('PATCH', url, body),
    put: (url: string, body?: unknown) => call('PUT', url, body),
    delete: (url: string) => call('DELETE', url),
  };
}
export type Api = ReturnType<typeof client>;

function safeJson(text: string) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface TestOrg {
  id: string;
  /** A member per role (plus a guest), each with its own token and client. */
  members: Record<Role | 'guest', { userId: string; token: string; api: Api }>;
}

const ALL: (Role | 'guest')[] = ['admin', 'create', 'review', 'edit', 'comment', 'read', 'guest'];

/** A fresh organization with one member of every role; every test file makes its own. */
export async function createTestOrg(t: TestApp, title = 'Test org'): Promise<TestOrg> {
  const em = t.orm.em.fork();
  const org = await createOrganization(em, title);
  const members = {} as TestOrg['members'];
  for (const role of ALL) {
    const user = await findOrCreateUser(em, `${role}-${newId(8).toLowerCase()}@example.com`, `${role} user`);
    await setMembership(em, org.id, user.id, role === 'guest' ? null : role);
    const { token } = await issueToken(em, user.id, 'test');
    members[role] = { userId: user.id, token, api: client(t.app, token) };
  }
  return { id: org.id, members };
}

/** Adds an existing user of another org to this org with a role. */
export async function addMember(t: TestApp, orgId: string, userId: string, role: Role | null) {
  await setMembership(t.orm.em.fork(), orgId, userId, role);
}

/** Polls until `check` returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
}
