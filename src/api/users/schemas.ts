/** The user object is shared by every group that shows people (members, grants, comments, change requests). */
export { UserRef as UserSchema } from '../schemas.ts';
