import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors, ListQuery, NoContent } from '../../schemas.ts';
import { SiteParams, SiteSectionGroupList, SiteSectionGroupSchema, SiteSectionList, SiteSectionSchema } from '../schemas.ts';
import {
  AddGroupBody,
  AddSectionBody,
  AddSectionToGroupBody,
  GroupParams,
  GroupSectionParams,
  ListSectionsQuery,
  MoveGroupBody,
  MoveSectionBody,
  SectionParams,
  UpdateGroupBody,
  UpdateSectionBody,
} from './schemas.ts';
import {
  addGroup,
  addSection,
  addSectionToGroup,
  deleteGroup,
  deleteSection,
  listGroups,
  listSections,
  moveGroup,
  moveSection,
  removeSectionFromGroup,
  updateGroup,
  updateSection,
} from './service.ts';

/** Site sections and section groups: HTTP only. The rules are in ./service.ts. */
export const siteSectionRoutes: RoutePlugin = async (app) => {
  const tags = ['sites'];
  const sections = '/v1/orgs/:organizationId/sites/:siteId/sections';
  const groups = '/v1/orgs/:organizationId/sites/:siteId/section-groups';

  app.get(
    sections,
    {
      schema: {
        tags,
        summary: 'List the sections of a site',
        params: SiteParams,
        querystring: ListSectionsQuery,
        response: { 200: SiteSectionList, ...errors(404) },
      },
    },
    async (request) => listSections(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.post(
    sections,
    {
      schema: {
        tags,
        summary: 'Add a section (holding a space) to a site',
        params: SiteParams,
        body: AddSectionBody,
        response: { 201: SiteSectionSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await addSection(ctxOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );

  app.patch(
    `${sections}/:siteSectionId`,
    {
      schema: {
        tags,
        summary: 'Update a section',
        params: SectionParams,
        body: UpdateSectionBody,
        response: { 200: SiteSectionSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) =>
      updateSection(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSectionId, request.body),
  );

  app.delete(
    `${sections}/:siteSectionId`,
    {
      schema: { tags, summary: 'Delete a section', params: SectionParams, response: { 205: NoContent, ...errors(403, 404) } },
    },
    async (request, reply) => {
      await deleteSection(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSectionId);
      return reply.status(205).send();
    },
  );

  app.post(
    `${sections}/:siteSectionId/move`,
    {
      schema: {
        tags,
        summary: 'Move a section',
        params: SectionParams,
        body: MoveSectionBody,
        response: { 200: SiteSectionSchema, ...errors(403, 404) },
      },
    },
    async (request) =>
      moveSection(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSectionId, request.body),
  );

  app.get(
    groups,
    {
      schema: {
        tags,
        summary: 'List the section groups of a site',
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: SiteSectionGroupList, ...errors(403, 404) },
      },
    },
    async (request) => listGroups(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.post(
    groups,
    {
      schema: {
        tags,
        summary: 'Add a section group',
        params: SiteParams,
        body: AddGroupBody,
        response: { 201: SiteSectionGroupSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await addGroup(ctxOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );

  app.patch(
    `${groups}/:siteSectionGroupId`,
    {
      schema: {
        tags,
        summary: 'Update a section group',
        params: GroupParams,
        body: UpdateGroupBody,
        response: { 200: SiteSectionGroupSchema, ...errors(403, 404) },
      },
    },
    async (request) =>
      updateGroup(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSectionGroupId, request.body),
  );

  app.delete(
    `${groups}/:siteSectionGroupId`,
    {
      schema: {
        tags,
        summary: 'Delete a section group (its sections stay)',
        params: GroupParams,
        response: { 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await deleteGroup(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSectionGroupId);
      return reply.status(205).send();
    },
  );

  app.post(
    `${groups}/:siteSectionGroupId/sections`,
    {
      schema: {
        tags,
        summary: 'Add a section to a group',
        params: GroupParams,
        body: AddSectionToGroupBody,
        response: { 201: SiteSectionGroupSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await addSectionToGroup(
            ctxOf(request),
            request.params.organizationId,
            request.params.siteId,
            request.params.siteSectionGroupId,
            request.body.sectionId,
          ),
        ),
  );

  app.delete(
    `${groups}/:siteSectionGroupId/sections/:siteSectionId`,
    {
      schema: {
        tags,
        summary: 'Take a section out of a group',
        params: GroupSectionParams,
        response: { 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await removeSectionFromGroup(
        ctxOf(request),
        request.params.organizationId,
        request.params.siteId,
        request.params.siteSectionGroupId,
        request.params.siteSectionId,
      );
      return reply.status(205).send();
    },
  );

  app.post(
    `${groups}/:siteSectionGroupId/move`,
    {
      schema: {
        tags,
        summary: 'Move a section group',
        params: GroupParams,
        body: MoveGroupBody,
        response: { 200: SiteSectionGroupSchema, ...errors(403, 404) },
      },
    },
    async (request) =>
      moveGroup(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSectionGroupId, request.body),
  );
};
