import { Type } from 'typebox';
import { Id } from '../schemas.ts';

export const ChangeRequestPdfParams = Type.Object({ spaceId: Id, changeRequestId: Id });
export const SpacePdfParams = Type.Object({ spaceId: Id });

export const ChangeRequestPdfQuery = Type.Object({
  only: Type.Optional(Type.Boolean({ description: 'Print the page given by `page` alone, without the pages under it' })),
  page: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Id of the page to print (with the pages under it unless `only`)' }),
  ),
});

export const PdfUrl = Type.Object({
  url: Type.String({ format: 'uri', description: 'Temporary URL of the PDF; it works for one hour and needs no token' }),
});

export const PdfDownloadParams = Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) });

export const PdfDownloadQuery = Type.Object({
  expires: Type.Integer({ minimum: 0, description: 'Unix time (seconds) after which the link no longer works' }),
  signature: Type.String({ minLength: 1, maxLength: 128 }),
});

/** The PDF's bytes. */
export const PdfBytes = {
  description: 'The PDF',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
} as const;

/** A redirect to where the PDF is served (a blob store's presigned link): no body. */
export const PdfRedirect = Type.Null({ description: 'Redirect to a temporary link of the PDF (`location`)' });
