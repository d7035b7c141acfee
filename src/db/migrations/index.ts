import { Migration0001Foundation } from './Migration0001Foundation.ts';

/** Every migration, in order. New migrations are appended here. */
export const migrations = [Migration0001Foundation];
