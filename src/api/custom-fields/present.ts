import type { CustomFieldRow } from '../../db/custom-fields.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import type { Urls } from '../object-urls.ts';

/** A definition as the API shows it; `role` is the caller's role in its organization. */
export function presentCustomField(field: CustomFieldRow, role: Role | null, urls: Urls) {
  return {
    id: field.id,
    name: field.name,
    title: field.title,
    ...(field.description ? { description: field.description } : {}),
    type: field.type as 'text',
    ...(field.placeholder ? { placeholder: field.placeholder } : {}),
    ...(field.options ? { options: field.options } : {}),
    createdAt: field.createdAt.toISOString(),
    updatedAt: field.updatedAt.toISOString(),
    urls: urls.customField(field.organizationId, field.name),
    permissions: { view: true, edit: atLeast(role, 'admin') },
  };
}
