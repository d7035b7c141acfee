import { Type } from 'typebox';
import { Id } from '../schemas.ts';

/** The user object is shared by every group that shows people (members, grants, comments, change requests). */
export { UserRef as UserSchema } from '../schemas.ts';

export const UserParams = Type.Object({ userId: Id });
