import { Type, type TSchema } from 'typebox';
import { ROLES } from '../domain/roles.ts';

/** Schemas shared by every resource group: errors, lists, roles, users, pagination. */

export const ErrorResponse = Type.Object({ error: Type.Object({ code: Type.Integer(), message: Type.String() }) }, { $id: 'Error' });

export const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));
export const RoleOrNull = Type.Union([Role, Type.Null()]);
/** A content default level: a role, null (nothing beyond each member's own role), or `inherit`. */
export const DefaultLevel = Type.Union([Role, Type.Null(), Type.Literal('inherit')]);

export const Id = Type.String({ minLength: 1, maxLength: 64 });
export const Timestamp = Type.String({ format: 'date-time' });

export const UserRef = Type.Object({
  object: Type.Literal('user'),
  id: Type.String(),
  displayName: Type.String(),
  email: Type.Optional(Type.String()),
  photoURL: Type.Optional(Type.String()),
  urls: Type.Object({ location: Type.String() }),
});

export const ListQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024, description: 'Cursor from `next.page` of the previous answer' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Results per page (default 100, at most 1000)' })),
});

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    count: Type.Integer(),
    next: Type.Optional(Type.Object({ page: Type.String() })),
  });
}

/** Standard error responses for the OpenAPI document. */
/** The content type of an answer a route sends as JSON text it serialized itself. */
export const JSON_TYPE = 'application/json; charset=utf-8';

export function errors(...codes: number[]) {
  const out: Record<number, typeof ErrorResponse> = {};
  for (const code of [400, 401, ...codes]) out[code] = ErrorResponse;
  return out;
}

export const NoContent = Type.Null({ description: 'No content' });
