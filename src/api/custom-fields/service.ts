import type { Static } from 'typebox';
import {
  createField as insertField,
  customFieldRow,
  deleteField as removeField,
  fieldListing,
  fieldsNamed,
  fieldsOf,
  findField,
  pruneFieldValues,
  spaceValues,
  updateField as writeField,
  writeSpaceValues,
  type CustomFieldChanges,
} from '../../db/custom-fields.ts';
import { transaction, type Em } from '../../db/orm.ts';
import { checkOptions, checkValue, isSelectType, pruneValue } from '../../domain/custom-fields.ts';
import { newId } from '../../domain/ids.ts';
import { loadSpace, requireOrganization, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { urlsFor } from '../object-urls.ts';
import { presentCustomField } from './present.ts';
import type { CreateCustomFieldBody, UpdateCustomFieldBody, UpdateValuesBody } from './schemas.ts';

/**
 * Custom fields: definitions per organization (any member reads them, admins write them) and their
 * values on spaces (read with `read` on the space, written with `edit`).
 */

const MANAGE = 'manage the custom fields of this organization';

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

function duplicate(name: string) {
  return conflict(`name: a custom field named "${name}" already exists in this organization`);
}

async function loadField(em: Em, organizationId: string, name: string) {
  const field = await findField(em, organizationId, name);
  if (!field) throw notFound('Custom field');
  return field;
}

export async function listFields(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const { role } = await requireOrganization(ctx, organizationId);
  return paginate(ctx.em, fieldListing(ctx.em, organizationId), query, (rows) =>
    rows.map((f) => presentCustomField(customFieldRow(f), role, urlsOf(ctx))),
  );
}

export async function createField(ctx: Ctx, organizationId: string, body: Static<typeof CreateCustomFieldBody>) {
  const { em } = ctx;
  const { role } = await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  const problem = checkOptions(body.type, body.options, true);
  if (problem) throw badRequest(problem);
  if (await findField(em, organizationId, body.name)) throw duplicate(body.name);
  const now = new Date();
  const field = await insertField(em, {
    id: newId(),
    organizationId,
    name: body.name,
    type: body.type,
    title: body.title ?? body.name,
    description: body.description || null,
    placeholder: body.placeholder || null,
    options: isSelectType(body.type) ? body.options! : null,
    createdAt: now,
    updatedAt: now,
  });
  if (!field) throw duplicate(body.name);
  return presentCustomField(field, role, urlsOf(ctx));
}

export async function getField(ctx: Ctx, organizationId: string, fieldName: string) {
  const { role } = await requireOrganization(ctx, organizationId);
  return presentCustomField(await loadField(ctx.em, organizationId, fieldName), role, urlsOf(ctx));
}

/** Updates a definition; new options prune the values that are no longer options, in the same transaction. */
export async function updateField(ctx: Ctx, organizationId: string, fieldName: string, body: Static<typeof UpdateCustomFieldBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  const field = await transaction(ctx.em, async (tx) => {
    const field = await loadField(tx, organizationId, fieldName);
    const problem = checkOptions(field.type, body.options, false);
    if (problem) throw badRequest(problem);
    const changes: CustomFieldChanges = {};
    if (body.title !== undefined) changes.title = body.title || field.name;
    if (body.description !== undefined) changes.description = body.description || null;
    if (body.placeholder !== undefined) changes.placeholder = body.placeholder || null;
    const options = body.options;
    if (options !== undefined) {
      changes.options = options;
      // After new options: select values that are no longer options go, multi-select values keep what remains.
      await pruneFieldValues(tx, field.id, (value) => pruneValue(field.type, value, options));
    }
    return writeField(tx, field.id, changes, new Date());
  });
  return presentCustomField(field, role, urlsOf(ctx));
}

/** Deletes a definition; its values go with it (space_custom_field_value cascades). */
export async function deleteField(ctx: Ctx, organizationId: string, fieldName: string): Promise<void> {
  await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  const field = await loadField(ctx.em, organizationId, fieldName);
  await removeField(ctx.em, field.id);
}

/** Every field of the space's organization, with the space's value where it has one. */
export async function getSpaceValues(ctx: Ctx, spaceId: string) {
  const { em } = ctx;
  const { space } = await loadSpace(em, ctx.caller, spaceId);
  const { role } = await requireOrganization(ctx, space.organizationId);
  const fields = await fieldsOf(em, space.organizationId);
  const byField = await spaceValues(em, space.id);
  return fields.map((field) => ({
    customField: presentCustomField(field, role, urlsOf(ctx)),
    ...(byField.has(field.id) ? { value: byField.get(field.id) as string } : {}),
  }));
}

/**
 * Sets or clears values of a space. Every value is checked first (400 naming the first bad one);
 * then the batch is written in one transaction, whole or not at all.
 */
export async function updateSpaceValues(ctx: Ctx, spaceId: string, body: Static<typeof UpdateValuesBody>): Promise<void> {
  const { em } = ctx;
  const { space, role } = await loadSpace(em, ctx.caller, spaceId);
  requireRole(role, 'edit', 'edit the custom fields of this space');
  if (space.editMode === 'locked') throw forbidden('This space is locked: unlock it (editMode "live") before editing it');
  const names = Object.keys(body.values);
  const fields = await fieldsNamed(em, space.organizationId, names);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const writes: { fieldId: string; value: unknown }[] = [];
  const clears: string[] = [];
  for (const name of names) {
    const field = byName.get(name);
    if (!field) throw badRequest(`values.${name.slice(0, 60)} is not a custom field of this organization`);
    const value = body.values[name].value;
    if (value === undefined || value === null) {
      clears.push(field.id);
      continue;
    }
    const check = checkValue(field, value);
    if (!check.ok) throw badRequest(check.message);
    writes.push({ fieldId: field.id, value: check.value });
  }
  await transaction(em, (tx) => writeSpaceValues(tx, space.id, clears, writes, new Date()));
}
