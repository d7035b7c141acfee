import type { Client } from '@temporalio/client';
import type { Config } from '../config.ts';
import type { Em, Orm } from '../db/orm.ts';

/** What every route can reach: configuration, the database and the Temporal client. */
export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: Client;
}

/** The authenticated caller. */
export interface Caller {
  user: { id: string; displayName: string; email: string; photoUrl: string | null };
  tokenId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    /** A unit of work of its own for this request. */
    em: Em;
    caller: Caller;
  }
}
