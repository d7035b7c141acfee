import type { Orm } from '../db/orm.ts';
import { spaceActivities } from './spaces.ts';
import { changeRequestActivities } from './change-requests.ts';
import { openapiActivities } from './openapi.ts';
import { pdfActivities } from './pdf.ts';
import { contentImportActivities } from './content-import.ts';

/** Every activity the worker registers; each receives its dependencies here, once. */
export function createActivities(deps: { orm: Orm }) {
  return {
    ...spaceActivities(deps.orm),
    ...changeRequestActivities(deps.orm),
    ...openapiActivities(deps.orm),
    ...pdfActivities(deps.orm),
    ...contentImportActivities(deps.orm),
  };
}
