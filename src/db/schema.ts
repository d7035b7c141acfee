import { entities as foundation } from './entities.ts';
import { entities as settings } from './settings-entities.ts';
import { entities as teams } from './team-entities.ts';
import { samlEntities } from './saml-entities.ts';
import { entities as comments } from './comment-entities.ts';

/**
 * Every entity the ORM maps, one import per resource group. A group keeps its entities in its own
 * file beside this one (for example `content-entities.ts`) and adds them here. Tables read and written
 * only with SQL (OpenAPI specs, src/db/openapi.ts) have no entity.
 */
export const entities = [...foundation, ...teams, ...settings, ...samlEntities, ...comments];
