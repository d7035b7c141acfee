import { Type } from 'typebox';
import { Id } from '../../schemas.ts';
import { ShareLinkName } from '../schemas.ts';

export const ShareLinkParams = Type.Object({ organizationId: Id, siteId: Id, shareLinkId: Id });
export const CreateShareLinkBody = Type.Object({ name: ShareLinkName });
export const UpdateShareLinkBody = Type.Object(
  { active: Type.Optional(Type.Boolean()), name: Type.Optional(ShareLinkName) },
  { minProperties: 1 },
);
