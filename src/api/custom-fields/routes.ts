import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Em } from '../../db/orm.ts';
import { CustomField, SpaceCustomFieldValue } from '../../db/settings-entities.ts';
import { checkOptions, checkValue, isSelectType, pruneValue } from '../../domain/custom-fields.ts';
import { newId } from '../../domain/ids.ts';
import { loadOrganization, loadSpace, requireRole } from '../access.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentCustomField } from './present.ts';
import {
  CreateCustomFieldBody, CustomFieldList, CustomFieldSchema, CustomFieldValueList, FieldParams, OrgParams, SpaceParams,
  UpdateCustomFieldBody, UpdateValuesBody,
} from './schemas.ts';

type FieldRef = Static<typeof FieldParams>;

/**
 * Custom fields: definitions per organization (any member reads them, admins write them) and their
 * values on spaces (read with `read` on the space, written with `edit`).
 */
export async function customFieldRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);
  const tags = ['custom fields'];

  app.get('/v1/orgs/:organizationId/custom-fields', {
    schema: { tags, summary: 'List the custom fields of an organization', params: OrgParams, querystring: ListQuery, response: { 200: CustomFieldList, ...errors(404) } },
  }, async (request) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    return paginate(em, CustomField, { organizationId }, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], request.query as object, (f) =>
      presentCustomField(f, role, urls),
    );
  });

  app.post('/v1/orgs/:organizationId/custom-fields', {
    schema: { tags, summary: 'Create a custom field', params: OrgParams, body: CreateCustomFieldBody, response: { 201: CustomFieldSchema, ...errors(403, 404, 409) } },
  }, async (request, reply) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const body = request.body as Static<typeof CreateCustomFieldBody>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage the custom fields of this organization');
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
    return reply.status(201).send(presentCustomField(field, role, urls));
  });

  app.get('/v1/orgs/:organizationId/custom-fields/:fieldName', {
    schema: { tags, summary: 'Get a custom field', params: FieldParams, response: { 200: CustomFieldSchema, ...errors(404) } },
  }, async (request) => {
    const { organizationId, fieldName } = request.params as FieldRef;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    return presentCustomField(await loadField(em, organizationId, fieldName), role, urls);
  });

  app.patch('/v1/orgs/:organizationId/custom-fields/:fieldName', {
    schema: { tags, summary: 'Update a custom field', params: FieldParams, body: UpdateCustomFieldBody, response: { 200: CustomFieldSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, fieldName } = request.params as FieldRef;
    const body = request.body as Static<typeof UpdateCustomFieldBody>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage the custom fields of this organization');
    const field = await em.transactional(async (tx) => {
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
    return presentCustomField(field, role, urls);
  });

  app.delete('/v1/orgs/:organizationId/custom-fields/:fieldName', {
    schema: { tags, summary: 'Delete a custom field and its values on every space', params: FieldParams, response: { 204: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId, fieldName } = request.params as FieldRef;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage the custom fields of this organization');
    const field = await loadField(em, organizationId, fieldName);
    // Values go with it: space_custom_field_value references the definition with `on delete cascade`.
    await em.nativeDelete(CustomField, { id: field.id });
    return reply.status(204).send();
  });

  app.get('/v1/spaces/:spaceId/custom-fields', {
    schema: { tags, summary: "Get the custom field values of a space (every field of the space's organization)", params: SpaceParams, response: { 200: CustomFieldValueList, ...errors(404) } },
  }, async (request) => {
    const { em, caller } = request;
    const { space } = await loadSpace(em, caller, (request.params as Static<typeof SpaceParams>).spaceId);
    const { role } = await loadOrganization(em, caller, space.organizationId);
    const [fields, values] = await Promise.all([
      em.find(CustomField, { organizationId: space.organizationId }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
      em.find(SpaceCustomFieldValue, { spaceId: space.id }),
    ]);
    const byField = new Map(values.map((v) => [v.customFieldId, v.value]));
    return fields.map((field) => ({
      customField: presentCustomField(field, role, urls),
      ...(byField.has(field.id) ? { value: byField.get(field.id) as string } : {}),
    }));
  });

  app.patch('/v1/spaces/:spaceId/custom-fields', {
    schema: { tags, summary: 'Set or clear custom field values of a space', params: SpaceParams, body: UpdateValuesBody, response: { 204: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { values } = request.body as Static<typeof UpdateValuesBody>;
    const { em, caller } = request;
    const { space, role } = await loadSpace(em, caller, (request.params as Static<typeof SpaceParams>).spaceId);
    requireRole(role, 'edit', 'edit the custom fields of this space');
    if (space.editMode === 'locked') throw forbidden('This space is locked: unlock it (editMode "live") before editing it');
    const names = Object.keys(values);
    const fields = names.length > 0 ? await em.find(CustomField, { organizationId: space.organizationId, name: { $in: names } }) : [];
    const byName = new Map(fields.map((f) => [f.name, f]));
    const writes: { fieldId: string; value: unknown }[] = [];
    const clears: string[] = [];
    for (const name of names) {
      const field = byName.get(name);
      if (!field) throw badRequest(`values.${name.slice(0, 60)} is not a custom field of this organization`);
      const value = values[name].value;
      if (value === undefined || value === null) {
        clears.push(field.id);
        continue;
      }
      const check = checkValue(field, value);
      if (!check.ok) throw badRequest(check.message);
      writes.push({ fieldId: field.id, value: check.value });
    }
    await em.transactional(async (tx) => {
      const now = new Date();
      if (clears.length > 0) await tx.nativeDelete(SpaceCustomFieldValue, { spaceId: space.id, customFieldId: { $in: clears } });
      for (const write of writes) {
        await tx.getConnection().execute(
          `insert into space_custom_field_value (space_id, custom_field_id, value, updated_at) values (?, ?, ?::jsonb, ?)
           on conflict (space_id, custom_field_id) do update set value = excluded.value, updated_at = excluded.updated_at`,
          [space.id, write.fieldId, JSON.stringify(write.value), now],
        );
      }
    });
    return reply.status(204).send();
  });
}

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
