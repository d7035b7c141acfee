import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import {
  CreateCustomFieldBody,
  CustomFieldList,
  CustomFieldSchema,
  CustomFieldValueList,
  FieldParams,
  OrgParams,
  SpaceParams,
  UpdateCustomFieldBody,
  UpdateValuesBody,
} from './schemas.ts';
import { createField, deleteField, getField, getSpaceValues, listFields, updateField, updateSpaceValues } from './service.ts';

/** Custom field definitions and their values on spaces: HTTP only. The rules are in ./service.ts. */
export const customFieldRoutes: RoutePlugin = async (app) => {
  const tags = ['custom fields'];

  app.get(
    '/v1/orgs/:organizationId/custom-fields',
    {
      schema: {
        tags,
        summary: 'List the custom fields of an organization',
        params: OrgParams,
        querystring: ListQuery,
        response: { 200: CustomFieldList, ...errors(404) },
      },
    },
    async (request) => listFields(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/orgs/:organizationId/custom-fields',
    {
      schema: {
        tags,
        summary: 'Create a custom field',
        params: OrgParams,
        body: CreateCustomFieldBody,
        response: { 201: CustomFieldSchema, ...errors(403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await createField(ctxOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/v1/orgs/:organizationId/custom-fields/:fieldName',
    {
      schema: { tags, summary: 'Get a custom field', params: FieldParams, response: { 200: CustomFieldSchema, ...errors(404) } },
    },
    async (request) => getField(ctxOf(request), request.params.organizationId, request.params.fieldName),
  );

  app.patch(
    '/v1/orgs/:organizationId/custom-fields/:fieldName',
    {
      schema: {
        tags,
        summary: 'Update a custom field',
        params: FieldParams,
        body: UpdateCustomFieldBody,
        response: { 200: CustomFieldSchema, ...errors(403, 404) },
      },
    },
    async (request) => updateField(ctxOf(request), request.params.organizationId, request.params.fieldName, request.body),
  );

  app.delete(
    '/v1/orgs/:organizationId/custom-fields/:fieldName',
    {
      schema: {
        tags,
        summary: 'Delete a custom field and its values on every space',
        params: FieldParams,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await deleteField(ctxOf(request), request.params.organizationId, request.params.fieldName);
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/spaces/:spaceId/custom-fields',
    {
      schema: {
        tags,
        summary: "Get the custom field values of a space (every field of the space's organization)",
        params: SpaceParams,
        response: { 200: CustomFieldValueList, ...errors(404) },
      },
    },
    async (request) => getSpaceValues(ctxOf(request), request.params.spaceId),
  );

  app.patch(
    '/v1/spaces/:spaceId/custom-fields',
    {
      schema: {
        tags,
        summary: 'Set or clear custom field values of a space',
        params: SpaceParams,
        body: UpdateValuesBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await updateSpaceValues(ctxOf(request), request.params.spaceId, request.body);
      return reply.status(204).send();
    },
  );
};
