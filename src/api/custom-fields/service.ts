import type { Static } from 'typebox';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { writeSpaceValues } from '../../db/custom-fields.ts';
import type { Em } from '../../db/orm.ts';
import { CustomField, SpaceCustomFieldValue } from '../../db/settings-entities.ts';
import { checkOptions, checkValue, isSelectType, pruneValue } from '../../domain/custom-fields.ts';
import { newId } from '../../domain/ids.ts';
import { loadSpace, requireOrganization, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { paginateEntity } from '../pagination.ts';
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
  const field = await em.findOne(CustomField, { organizationId, name });
  if (!field) throw notFound('Custom field');
  return field;
}

/** After new options: select values that are no longer options go, multi-select values keep what remains. */
async function pruneValues(em: Em, fieldId: string, type: string, options: string[]) {
  const values = await em.find(SpaceCustomFieldValue, { customFieldId: fieldId });
  for (const row of values) {
    const kept = pruneValue(type, row.value, options);
    if (kept === undefined) em.remove(row);
    else if (JSON.stringify(kept) !== JSON.stringify(row.value)) row.value = kept;
  }
}

export async function listFields(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const { role } = await requireOrganization(ctx, organizationId);
  return paginateEntity(
    ctx.em,
    CustomField,
    { organizationId },
    [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    query,
    (f) => presentCustomField(f, role, urlsOf(ctx)),
  );
}

export async function createField(ctx: Ctx, organizationId: string, body: Static<typeof CreateCustomFieldBody>) {
  const { em } = ctx;
  const { role } = await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  const problem = checkOptions(body.type, body.options, true);
  if (problem) throw badRequest(problem);
  if (await em.count(CustomField, { organizationId, name: body.name })) throw duplicate(body.name);
  const now = new Date();
  const field = em.create(CustomField, {
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
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw duplicate(body.name);
    throw error;
  }
  return presentCustomField(field, role, urlsOf(ctx));
}

export async function getField(ctx: Ctx, organizationId: string, fieldName: string) {
  const { role } = await requireOrganization(ctx, organizationId);
  return presentCustomField(await loadField(ctx.em, organizationId, fieldName), role, urlsOf(ctx));
}

/** Updates a definition; new options prune the values that are no longer options, in the same transaction. */
export async function updateField(ctx: Ctx, organizationId: string, fieldName: string, body: Static<typeof UpdateCustomFieldBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  const field = await ctx.em.transactional(async (tx) => {
    const field = await loadField(tx, organizationId, fieldName);
    const problem = checkOptions(field.type, body.options, false);
    if (problem) throw badRequest(problem);
    if (body.title !== undefined) field.title = body.title || field.name;
    if (body.description !== undefined) field.description = body.description || null;
    if (body.placeholder !== undefined) field.placeholder = body.placeholder || null;
    if (body.options !== undefined) {
      field.options = body.options;
      await pruneValues(tx, field.id, field.type, body.options);
    }
    field.updatedAt = new Date();
    return field;
  });
  return presentCustomField(field, role, urlsOf(ctx));
}

/** Deletes a definition; its values go with it (space_custom_field_value cascades). */
export async function deleteField(ctx: Ctx, organizationId: string, fieldName: string): Promise<void> {
  await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  const field = await loadField(ctx.em, organizationId, fieldName);
  await ctx.em.nativeDelete(CustomField, { id: field.id });
}

/** Every field of the space's organization, with the space's value where it has one. */
export async function getSpaceValues(ctx: Ctx, spaceId: string) {
  const { em } = ctx;
  const { space } = await loadSpace(em, ctx.caller, spaceId);
  const { role } = await requireOrganization(ctx, space.organizationId);
  const [fields, values] = await Promise.all([
    em.find(CustomField, { organizationId: space.organizationId }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
    em.find(SpaceCustomFieldValue, { spaceId: space.id }),
  ]);
  const byField = new Map(values.map((v) => [v.customFieldId, v.value]));
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
  const fields = names.length > 0 ? await em.find(CustomField, { organizationId: space.organizationId, name: { $in: names } }) : [];
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
  await em.transactional((tx) => writeSpaceValues(tx, space.id, clears, writes, new Date()));
}
