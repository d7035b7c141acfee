import { Type } from 'typebox';
import { IMPORT_SOURCES } from '../../domain/content-import/sources.ts';
import { Id } from '../schemas.ts';

export const SpaceImportParams = Type.Object({ spaceId: Id });
export const ChangeRequestImportParams = Type.Object({ spaceId: Id, changeRequestId: Id });

/**
 * `source` is checked by the service rather than by an enum here, so that an unknown source and
 * a source that needs a third-party connector each get a message saying what to do instead.
 */
export const ImportContentBody = Type.Object({
  url: Type.String({ format: 'uri', minLength: 1, maxLength: 2048, description: 'Where to import from (http or https)' }),
  source: Type.String({ minLength: 1, maxLength: 64, description: `One of ${IMPORT_SOURCES.join(', ')}` }),
});

export const ImportResult = Type.Object({
  revision: Type.String(),
  importedResources: Type.Integer(),
  totalResources: Type.Integer(),
});
