import type { Orm } from '../db/orm.ts';
import { spaceActivities } from './spaces.ts';
import { changeRequestActivities } from './change-requests.ts';
import { openapiActivities } from './openapi.ts';
import { pdfActivities } from './pdf.ts';
import { gitSyncActivities } from './git-sync.ts';

/** Every activity the worker registers; each receives its dependencies here, once. */
export function createActivities(deps: { orm: Orm }) {
  return {
    ...spaceActivities(deps.orm),
    ...changeRequestActivities(deps.orm),
    ...openapiActivities(deps.orm),
    ...pdfActivities(deps.orm),
    ...gitSyncActivities(deps.orm),
  };
}
