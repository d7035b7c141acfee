import { Type } from 'typebox';
import { Id, ListOf, Timestamp } from '../schemas.ts';

export const LookupTokenOrgParams = Type.Object({ organizationId: Id });
export const LookupTokenParams = Type.Object({ organizationId: Id, lookupTokenId: Id });

export const CreateLookupTokenBody = Type.Object({
  label: Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for, e.g. the renderer that holds it' }),
});

export const LookupTokenSchema = Type.Object({
  object: Type.Literal('site-lookup-token'),
  id: Type.String(),
  label: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: Type.Optional(Timestamp),
  /** The secret: answered only when the token is created. */
  token: Type.Optional(Type.String()),
});

export const LookupTokenList = ListOf(LookupTokenSchema);
