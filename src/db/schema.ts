import { entities as foundation } from './entities.ts';
import { entities as settings } from './settings-entities.ts';
import { entities as teams } from './team-entities.ts';
import { samlEntities } from './saml-entities.ts';
import { entities as comments } from './comment-entities.ts';
import { entities as content } from './content-entities.ts';
import { entities as gitSync } from './git-sync-entities.ts';
import { entities as openapi } from './openapi-entities.ts';
import { entities as sites } from './site-entities.ts';
import { entities as reviews } from './review-entities.ts';
import { entities as invites } from './invite-entities.ts';
import { entities as blobs } from './blob-entities.ts';
import { entities as insights } from './insights-entities.ts';
import { entities as sitePermissions } from './site-permission-entities.ts';
import { entities as integrationInstallations } from './integration-installation-entities.ts';
import { entities as integrationEvents } from './integration-event-entities.ts';

/**
 * Every table the migrations create, mapped as an entity, one import per resource group. A group
 * keeps its entities in its own file beside this one (`<area>-entities.ts`) and adds them here;
 * test/db/entity-coverage.test.ts checks the list against the migrated schema, column by column.
 */
export const entities = [
  ...foundation,
  ...teams,
  ...settings,
  ...samlEntities,
  ...comments,
  ...content,
  ...gitSync,
  ...openapi,
  ...sites,
  ...reviews,
  ...invites,
  ...blobs,
  ...insights,
  ...sitePermissions,
  ...integrationInstallations,
  ...integrationEvents,
];
