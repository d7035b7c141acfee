import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { findOrCreateUser, issueToken } from '../../src/db/accounts.ts';
import { MUTATING_METHODS, NOT_CHANGES, catalogedRoutes, routeAudit, routeTarget } from '../../src/domain/audit.ts';
import { newId } from '../../src/domain/ids.ts';
import { spaceDeletionWorkflowId } from '../../src/temporal/space-deletion.ts';
import { startGitServer } from '../support/git-server.ts';
import { PNG_2X3 } from '../support/fixtures.ts';
import { startImportFixtures, type ImportFixtures } from '../support/import-fixtures.ts';
import { IDP_ENTITY_ID, IDP_SSO_URL, buildResponse, encode, idp, sign } from '../support/saml-idp.ts';
import { addMember, client, createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/sql.ts';

/**
 * One change of every kind the API offers, each found in the audit log exactly once, with the
 * right action, actor, target and organization. The routes come from the app itself (its OpenAPI
 * document), so a mutating route added later fails here until the catalog (src/domain/audit.ts)
 * names its action and a row below makes one change through it.
 */

type Params = Record<string, string>;
interface Row {
  body?: (p: Params) => unknown;
  /** A fresh target for an operation that consumes it (deletions, transfers). */
  fresh?: (p: Params) => Promise<Params>;
  /** Who makes the change (default: the organization's admin). */
  as?: (p: Params) => Promise<{ token: string; userId: string }>;
  /** Sends the request itself (routes with credentials of their own); returns status, body, request id. */
  send?: (p: Params, requestId: string) => Promise<{ status: number; body: any }>;
  /** The target the event must name, when it is not the route's (a creation: what it created). */
  target?: (p: Params, answer: any) => { type: string; id: string };
  /** The actor the event must name (default: the caller; `system` for routes without a caller). */
  actor?: (p: Params, answer: any) => string;
}

let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
const p: Params = {};
const admin = () => org.members.admin.api;
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const site = (q: Params) => `/v1/orgs/${org.id}/sites/${q.siteId}`;

async function ok<T = any>(res: Promise<{ status: number; body: any }>, what: string): Promise<T> {
  const r = await res;
  if (r.status >= 300) throw new Error(`fixture ${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

const newSpace = async () => (await ok(admin().post(`/v1/orgs/${org.id}/spaces`, { title: unique('Space') }), 'space')).id as string;
const newCollection = async () =>
  (await ok(admin().post(`/v1/orgs/${org.id}/collections`, { title: unique('Coll') }), 'collection')).id as string;
const newSite = async () => (await ok(admin().post(`/v1/orgs/${org.id}/sites`, { title: unique('Site') }), 'site')).id as string;
const newTeam = async () => (await ok(admin().put(`/v1/orgs/${org.id}/teams`, { title: unique('Team') }), 'team')).id as string;
/** A new site of the organization with a custom hostname: the hostname. */
async function newHostnameSite() {
  const hostname = `${unique('docs')}.example.com`;
  await ok(admin().patch(`/v1/orgs/${org.id}/sites/${await newSite()}`, { hostname }), 'site hostname');
  return hostname;
}
const newInviteLink = async (role: string | null = 'read') =>
  (await ok(admin().post(`/v1/orgs/${org.id}/link-invites`, { role }), 'invite link')).id as string;
const newSection = async (siteId: string) =>
  (await ok(admin().post(`/v1/orgs/${org.id}/sites/${siteId}/sections`, { spaceId: await newSpace(), title: unique('S') }), 'section'))
    .id as string;
async function newComment(spaceId: string, crId?: string) {
  const base = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}` : `/v1/spaces/${spaceId}`;
  return (await ok(admin().post(`${base}/comments`, { page: p.pageId, body: { markdown: 'Hello' } }), 'comment')).id as string;
}
async function newReply(spaceId: string, commentId: string, crId?: string) {
  const base = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}` : `/v1/spaces/${spaceId}`;
  return (await ok(admin().post(`${base}/comments/${commentId}/replies`, { body: { markdown: 'Reply' } }), 'reply')).id as string;
}
/** A person with an account who is not a member of the organization. */
async function outsider() {
  const em = t.orm.em.fork();
  const email = `outsider-${newId(8).toLowerCase()}@example.com`;
  const user = await findOrCreateUser(em, email, 'Outsider');
  const { token } = await issueToken(em, user.id, 'test');
  return { token, userId: user.id, email, api: client(t.app, token) };
}
async function newUser(role = 'read') {
  const person = await outsider();
  await addMember(t, org.id, person.userId, role as never);
  return person.userId;
}
/** An invitation by email of a person with an account, as they see it. */
async function emailInvite() {
  const person = await outsider();
  await ok(admin().post(`/v1/orgs/${org.id}/invites`, { emails: [person.email], role: 'read' }), 'email invite');
  const pending = await ok(person.api.get('/v1/user/invites'), 'pending invites');
  return { person, inviteId: pending.items[0].id as string };
}

const SAML_BODY = { label: 'IdP', entityID: IDP_ENTITY_ID, certificate: idp.cert, ssoURL: IDP_SSO_URL };
const INTEGRATION_BODY = (orgId: string) => ({
  title: 'Integration',
  description: 'Does things',
  script: 'export default {}',
  organization: orgId,
});
const REDIRECT_BODY = (source: string) => ({ source, destination: { kind: 'external', url: 'https://example.com/' } });
const WEBHOOK_SECRET = 'a-webhook-secret-of-32-characters';

const invitee = new Map<string, { token: string; userId: string }>();

const rows: Record<string, Row> = {
  'PATCH /v1/orgs/{organizationId}': { body: () => ({ mergeRules: { type: 'none' } }) },

  'POST /v1/orgs/{organizationId}/collections': { body: () => ({ title: 'New collection' }) },
  'PATCH /v1/collections/{collectionId}': { body: () => ({ description: 'Changed' }) },
  'DELETE /v1/collections/{collectionId}': { fresh: async () => ({ collectionId: await newCollection() }) },
  'POST /v1/collections/{collectionId}/move': {
    body: () => ({ position: { after: { type: 'collection', collection: p.otherCollectionId } } }),
  },
  'POST /v1/collections/{collectionId}/transfer': {
    body: () => ({ organization: p.targetOrgId }),
    fresh: async () => ({ collectionId: await newCollection() }),
  },
  'POST /v1/collections/{collectionId}/permissions': { body: () => ({ role: 'read', users: [p.userId] }) },
  'PATCH /v1/collections/{collectionId}/permissions/users/{userId}': { body: () => ({ role: 'edit' }) },
  'PATCH /v1/collections/{collectionId}/permissions/teams/{teamId}': { body: () => ({ role: 'edit' }) },
  'DELETE /v1/collections/{collectionId}/permissions/users/{userId}': {},
  'DELETE /v1/collections/{collectionId}/permissions/teams/{teamId}': {},

  'POST /v1/orgs/{organizationId}/spaces': { body: () => ({ title: 'New space' }), target: (_q, a) => ({ type: 'space', id: a.id }) },
  'PATCH /v1/spaces/{spaceId}': { body: () => ({ emoji: '1f600' }) },
  'DELETE /v1/spaces/{spaceId}': { fresh: async () => ({ spaceId: await newSpace() }) },
  'POST /v1/spaces/{spaceId}/restore': {
    fresh: async () => {
      const spaceId = await newSpace();
      await ok(admin().delete(`/v1/spaces/${spaceId}`), 'deletion');
      return { spaceId };
    },
  },
  'POST /v1/spaces/{spaceId}/duplicate': {},
  'POST /v1/spaces/{spaceId}/move': { body: () => ({ position: { before: { type: 'space', space: p.otherSpaceId } } }) },
  'POST /v1/spaces/{spaceId}/transfer': {
    body: () => ({ organization: p.targetOrgId }),
    fresh: async () => ({ spaceId: await newSpace() }),
  },
  'PATCH /v1/spaces/{spaceId}/custom-fields': { body: () => ({ values: { [p.fieldName]: { value: 'x' } } }) },
  'POST /v1/spaces/{spaceId}/permissions': { body: () => ({ role: 'read', users: [p.userId] }) },
  'PATCH /v1/spaces/{spaceId}/permissions/users/{userId}': { body: () => ({ role: 'edit' }) },
  'PATCH /v1/spaces/{spaceId}/permissions/teams/{teamId}': { body: () => ({ role: 'edit' }) },
  'DELETE /v1/spaces/{spaceId}/permissions/users/{userId}': {},
  'DELETE /v1/spaces/{spaceId}/permissions/teams/{teamId}': {},

  'POST /v1/spaces/{spaceId}/change-requests': {
    body: () => ({ subject: 'Audited' }),
    target: (_q, a) => ({ type: 'change-request', id: a.id }),
  },
  'PATCH /v1/spaces/{spaceId}/change-requests/{changeRequestId}': { body: () => ({ subject: 'Renamed' }) },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content': {
    body: () => ({ changes: [{ operation: 'update_page', page: p.pageId, title: 'Renamed' }] }),
  },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge': {
    fresh: async (q) => {
      const cr = await ok(admin().post(`/v1/spaces/${q.spaceId}/change-requests`, { subject: 'To merge' }), 'cr');
      await ok(
        admin().post(`/v1/spaces/${q.spaceId}/change-requests/${cr.id}/content`, {
          changes: [{ operation: 'insert_page', title: unique('Merged'), document: { markdown: 'merged' } }],
        }),
        'cr content',
      );
      return { changeRequestId: cr.id };
    },
  },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/update': {},
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/reviews': {
    as: async () => org.members.review,
    body: () => ({ status: 'changes-requested' }),
  },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers': { body: () => ({ users: [p.userId] }) },
  'DELETE /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}': {},

  'POST /v1/spaces/{spaceId}/content/import': { body: () => ({ source: 'markdown', url: `${fx.base}/docs/audit.md` }) },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import': {
    body: () => ({ source: 'markdown', url: `${fx.base}/docs/audit.md` }),
  },
  'POST /v1/spaces/{spaceId}/git/import': { body: () => ({ url: 'https://example.invalid/docs.git', ref: 'refs/heads/main' }) },
  'POST /v1/spaces/{spaceId}/git/export': {
    body: () => ({ url: 'https://example.invalid/docs.git', ref: 'refs/heads/main', commitMessage: 'Export' }),
  },
  'PUT /v1/spaces/{spaceId}/git/webhook': {
    body: () => ({ provider: 'github', url: 'https://example.invalid/docs.git', branch: 'main', secret: WEBHOOK_SECRET }),
  },
  'POST /hooks/git/{spaceId}': {
    fresh: async () => {
      const spaceId = await newSpace();
      await ok(
        admin().put(`/v1/spaces/${spaceId}/git/webhook`, {
          provider: 'github',
          url: 'https://example.invalid/docs.git',
          branch: 'main',
          secret: WEBHOOK_SECRET,
        }),
        'webhook',
      );
      return { spaceId };
    },
    send: async (q, requestId) => {
      const payload = JSON.stringify({ ref: 'refs/heads/main', after: 'a'.repeat(40) });
      const res = await t.app.inject({
        method: 'POST',
        url: `/hooks/git/${q.spaceId}`,
        payload,
        headers: {
          'content-type': 'application/json',
          'x-request-id': requestId,
          'x-github-event': 'push',
          'x-github-delivery': unique('delivery'),
          'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(payload).digest('hex')}`,
        },
      });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    },
    actor: () => 'system',
  },

  'POST /v1/orgs/{organizationId}/openapi': { body: () => ({ slug: unique('spec'), source: { text: 'openapi: 3.1.0' } }) },
  'PUT /v1/orgs/{organizationId}/openapi/{specSlug}': { body: () => ({ source: { text: 'openapi: 3.1.0' } }) },
  'DELETE /v1/orgs/{organizationId}/openapi/{specSlug}': {
    fresh: async () => ({
      specSlug: (await ok(admin().post(`/v1/orgs/${org.id}/openapi`, { slug: unique('spec'), source: { text: 'openapi: 3.1.0' } }), 'spec'))
        .slug,
    }),
  },

  'POST /v1/orgs/{organizationId}/custom-fields': { body: () => ({ name: unique('f'), type: 'text' }) },
  'PATCH /v1/orgs/{organizationId}/custom-fields/{fieldName}': { body: () => ({ title: 'Field' }) },
  'DELETE /v1/orgs/{organizationId}/custom-fields/{fieldName}': {
    fresh: async () => ({
      fieldName: (await ok(admin().post(`/v1/orgs/${org.id}/custom-fields`, { name: unique('f'), type: 'text' }), 'field')).name,
    }),
  },
  'POST /v1/orgs/{organizationId}/translations': { body: () => ({ title: 'T', languages: ['fr'] }) },
  'PUT /v1/orgs/{organizationId}/translations/{translationId}': { body: () => ({ title: 'T2', languages: ['de'] }) },
  'DELETE /v1/orgs/{organizationId}/translations/{translationId}': {
    fresh: async () => ({
      translationId: (await ok(admin().post(`/v1/orgs/${org.id}/translations`, { title: 'T', languages: ['fr'] }), 'translation')).id,
    }),
  },

  'POST /v1/orgs/{organizationId}/saml': { body: () => SAML_BODY },
  'PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}': { body: () => ({ label: 'IdP 2' }) },
  'DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}': {
    fresh: async () => ({ samlProviderId: (await ok(admin().post(`/v1/orgs/${org.id}/saml`, SAML_BODY), 'saml')).id }),
  },
  'POST /sso/saml/{samlProviderId}/acs': {
    send: async (q, requestId) => {
      const provider = await ok(admin().get(`/v1/orgs/${org.id}/saml/${q.samlProviderId}`), 'provider');
      const xml = sign(
        buildResponse({
          audience: provider.service.entityID,
          acsUrl: provider.service.acsURL,
          email: `sso-${newId(6).toLowerCase()}@example.com`,
        }),
        'assertion',
      );
      const res = await t.app.inject({
        method: 'POST',
        url: `/sso/saml/${q.samlProviderId}/acs`,
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        payload: JSON.stringify({ SAMLResponse: encode(xml) }),
      });
      return { status: res.statusCode, body: JSON.parse(res.body) };
    },
    actor: (_q, a) => a.userId,
  },

  'POST /v1/integrations/{integrationName}': {
    body: () => INTEGRATION_BODY(org.id),
    fresh: async () => ({ integrationName: unique('integ') }),
  },
  'DELETE /v1/integrations/{integrationName}': {
    fresh: async () => ({
      integrationName: (await ok(admin().post(`/v1/integrations/${unique('integ')}`, INTEGRATION_BODY(org.id)), 'integration')).name,
    }),
  },
  'PUT /v1/integrations/{integrationName}/dev': { body: () => ({ tunnelUrl: 'https://tunnel.example.com' }) },
  'DELETE /v1/integrations/{integrationName}/dev': {},
  'POST /v1/integrations/{integrationName}/installations': {
    body: () => ({ organization: org.id }),
    fresh: async () => ({
      integrationName: (await ok(admin().post(`/v1/integrations/${unique('integ')}`, INTEGRATION_BODY(org.id)), 'integration')).name,
    }),
  },
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}': { body: () => ({ configuration: {} }) },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}': {
    fresh: async () => {
      const integrationName = (await ok(admin().post(`/v1/integrations/${unique('integ')}`, INTEGRATION_BODY(org.id)), 'integration')).name;
      const installation = await ok(
        admin().post(`/v1/integrations/${integrationName}/installations`, { organization: org.id }),
        'installation',
      );
      return { integrationName, installationId: installation.id };
    },
  },
  'POST /v1/integrations/{integrationName}/installations/{installationId}/tokens': {},
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': { body: () => ({ configuration: {} }) },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': {
    fresh: async (q) => {
      const spaceId = await newSpace();
      await ok(
        admin().patch(`/v1/integrations/${q.integrationName}/installations/${q.installationId}/spaces/${spaceId}`, {}),
        'space installation',
      );
      return { spaceId };
    },
  },
  'POST /v1/integrations/{integrationName}/installations/{installationId}/sites': {
    body: (q) => ({ siteId: q.siteId }),
    fresh: async () => ({ siteId: await newSite() }),
  },
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': { body: () => ({ configuration: {} }) },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': {
    fresh: async (q) => {
      const siteId = await newSite();
      await ok(
        admin().post(`/v1/integrations/${q.integrationName}/installations/${q.installationId}/sites`, { siteId }),
        'site installation',
      );
      return { siteId };
    },
  },

  'PATCH /v1/orgs/{organizationId}/members/{userId}': { body: () => ({ role: 'comment' }) },
  'DELETE /v1/orgs/{organizationId}/members/{userId}': { fresh: async () => ({ userId: await newUser() }) },
  'POST /v1/orgs/{organizationId}/members/{userId}/sso': { fresh: async () => ({ userId: await newUser() }) },
  // An invitation of a person with an account (one without is answered alike and changes nothing).
  'POST /v1/orgs/{organizationId}/invites': {
    fresh: async () => ({ email: (await outsider()).email }),
    body: (q) => ({ emails: [q.email], role: 'read' }),
  },
  'POST /v1/orgs/{organizationId}/link-invites': { body: () => ({ role: 'read' }) },
  'PATCH /v1/orgs/{organizationId}/link-invites/{inviteId}': { body: () => ({ role: 'comment' }) },
  'DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}': { fresh: async () => ({ inviteId: await newInviteLink() }) },
  'POST /v1/orgs/{organizationId}/invites/{inviteId}': {
    fresh: async () => {
      const inviteId = await newInviteLink();
      invitee.set(inviteId, await outsider());
      return { inviteId };
    },
    as: async (q) => invitee.get(q.inviteId)!,
  },
  'POST /v1/user/invites/{inviteId}': {
    fresh: async () => {
      const { person, inviteId } = await emailInvite();
      invitee.set(inviteId, person);
      return { inviteId };
    },
    as: async (q) => invitee.get(q.inviteId)!,
  },
  'DELETE /v1/user/invites/{inviteId}': {
    fresh: async () => {
      const { person, inviteId } = await emailInvite();
      invitee.set(inviteId, person);
      return { inviteId };
    },
    as: async (q) => invitee.get(q.inviteId)!,
  },

  'PUT /v1/orgs/{organizationId}/teams': { body: () => ({ title: unique('Team') }) },
  'PATCH /v1/orgs/{organizationId}/teams/{teamId}': { body: () => ({ title: 'Renamed team' }) },
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}': { fresh: async () => ({ teamId: await newTeam() }) },
  'PUT /v1/orgs/{organizationId}/teams/{teamId}/members': { body: () => ({ add: [org.members.comment.userId] }) },
  'PUT /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}': { body: () => ({ role: 'member' }) },
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}': {},

  'POST /v1/orgs/{organizationId}/sites': { body: () => ({ title: 'New site' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}': { body: () => ({ title: 'Renamed site' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}': { fresh: async () => ({ siteId: await newSite() }) },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/publish': {},
  'POST /v1/orgs/{organizationId}/sites/{siteId}/unpublish': {},
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema': {
    body: () => ({ jsonSchema: { type: 'object', properties: {}, additionalProperties: false } }),
  },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth': { body: () => ({ fallbackURL: 'https://example.com/login' }) },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate': {},
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/customization': { body: () => ({ title: 'Custom' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/customization': { body: () => ({ title: 'Custom 2' }) },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/sections': { body: () => ({ spaceId: p.otherSpaceId, title: 'Section' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': { body: () => ({ title: 'Renamed section' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': {
    fresh: async (q) => ({ siteSectionId: await newSection(q.siteId) }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move': {
    body: () => ({ position: { after: { type: 'site-section', siteSection: p.otherSectionId } } }),
  },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort': {
    body: () => ({
      item: { type: 'site-section', id: p.siteSectionId },
      position: { after: { type: 'site-section', id: p.otherSectionId } },
    }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups': { body: () => ({ title: 'Group' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': { body: () => ({ title: 'G2' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': {
    fresh: async (q) => ({ siteSectionGroupId: (await ok(admin().post(`${site(q)}/section-groups`, { title: 'G' }), 'group')).id }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections': {
    fresh: async (q) => ({ siteSectionId: await newSection(q.siteId) }),
    body: (q) => ({ sectionId: q.siteSectionId }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}': {
    fresh: async (q) => {
      const siteSectionId = await newSection(q.siteId);
      await ok(admin().post(`${site(q)}/section-groups/${q.siteSectionGroupId}/sections`, { sectionId: siteSectionId }), 'grouping');
      return { siteSectionId };
    },
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move': {
    body: () => ({ position: { after: { type: 'site-section', id: p.otherSectionId } } }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces': { body: () => ({ spaceId: p.spaceId }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}': { body: () => ({ hidden: true }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}': {
    fresh: async (q) => ({
      siteSpaceId: (await ok(admin().post(`${site(q)}/site-spaces`, { spaceId: await newSpace() }), 'site-space')).id,
    }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move': {
    fresh: async (q) => ({
      siteSpaceId: (await ok(admin().post(`${site(q)}/site-spaces`, { spaceId: await newSpace() }), 'site-space')).id,
    }),
    body: () => ({ position: { before: { type: 'site-space', siteSpace: p.siteSpaceId } } }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/share-links': { body: () => ({ name: 'Link' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': { body: () => ({ name: 'Link 2' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': {
    fresh: async (q) => ({ shareLinkId: (await ok(admin().post(`${site(q)}/share-links`, { name: 'L' }), 'share-link')).id }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/redirects': { body: () => REDIRECT_BODY(`/${unique('created')}`) },
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/redirects': { body: () => ({ redirects: [REDIRECT_BODY('/audit-bulk')] }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}': {
    fresh: async (q) => ({
      siteRedirectId: (await ok(admin().post(`${site(q)}/redirects`, REDIRECT_BODY(`/${unique('r')}`)), 'redirect')).id,
    }),
    body: () => ({ permanent: true }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}': {
    fresh: async (q) => ({
      siteRedirectId: (await ok(admin().post(`${site(q)}/redirects`, REDIRECT_BODY(`/${unique('gone')}`)), 'redirect')).id,
    }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/permissions': { body: () => ({ role: 'edit', users: [p.userId] }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/permissions/users/{userId}': { body: () => ({ role: 'review' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/permissions/users/{userId}': {},
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/permissions/teams/{teamId}': { body: () => ({ role: 'review' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/permissions/teams/{teamId}': {},
  'PATCH /v1/custom-hostnames/{hostname}': { fresh: async () => ({ hostname: await newHostnameSite() }) },
  'DELETE /v1/custom-hostnames/{hostname}': { fresh: async () => ({ hostname: await newHostnameSite() }) },
  'POST /v1/orgs/{organizationId}/site-lookup-tokens': { body: () => ({ label: 'Renderer' }) },
  'DELETE /v1/orgs/{organizationId}/site-lookup-tokens/{lookupTokenId}': {
    fresh: async () => ({
      lookupTokenId: (await ok(admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Revoked' }), 'lookup token')).id,
    }),
  },
};

/** Comment routes, for a space's comments and a change request's. */
function commentRows(): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const base of ['/v1/spaces/{spaceId}', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}']) {
    const cr = base.includes('change-requests');
    const comment = async (q: Params) => ({ commentId: await newComment(q.spaceId, cr ? q.changeRequestId : undefined) });
    const reply = async (q: Params) => {
      const commentId = await newComment(q.spaceId, cr ? q.changeRequestId : undefined);
      return { commentId, commentReplyId: await newReply(q.spaceId, commentId, cr ? q.changeRequestId : undefined) };
    };
    Object.assign(out, {
      [`POST ${base}/comments`]: { body: () => ({ page: p.pageId, body: { markdown: 'Hi' } }) },
      [`PUT ${base}/comments/{commentId}`]: { fresh: comment, body: () => ({ resolved: true }) },
      [`DELETE ${base}/comments/{commentId}`]: { fresh: comment },
      [`POST ${base}/comments/{commentId}/replies`]: { fresh: comment, body: () => ({ body: { markdown: 'Me too' } }) },
      [`PUT ${base}/comments/{commentId}/replies/{commentReplyId}`]: { fresh: reply, body: () => ({ body: { markdown: 'Edited' } }) },
      [`DELETE ${base}/comments/{commentId}/replies/{commentReplyId}`]: { fresh: reply },
    } satisfies Record<string, Row>);
  }
  return out;
}

const toRouter = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** Every mutating operation of the app, as `METHOD /path/{param}`. */
function mutatingOperations(): string[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .map((m) => m.toUpperCase())
      .filter((m) => MUTATING_METHODS.has(m))
      .map((m) => `${m} ${path}`),
  );
}

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: randomBytes(32).toString('base64') });
  org = await createTestOrg(t, 'Audited routes');
  fx = await startImportFixtures();
  fx.routes.set('/docs/audit.md', { type: 'text/markdown', body: '# Audited\n\nImported.\n' });
  p.organizationId = org.id;
  const target = await createTestOrg(t, 'Audit transfer target');
  await addMember(t, target.id, org.members.admin.userId, 'admin');
  p.targetOrgId = target.id;
  p.collectionId = await newCollection();
  p.otherCollectionId = await newCollection();
  p.spaceId = await newSpace();
  p.otherSpaceId = await newSpace();
  const cr = await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests`, { subject: 'Fixture' }), 'change request');
  const edited = await ok(
    admin().post(`/v1/spaces/${p.spaceId}/change-requests/${cr.id}/content?compat=false`, {
      changes: [
        { operation: 'insert_page', title: 'Hello', document: { markdown: '# Hello\n\nworld' } },
        { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
      ],
    }),
    'content',
  );
  p.pageId = edited.changes.find((c: any) => c.page)?.page?.id;
  await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests/${cr.id}/merge`), 'merge');
  p.changeRequestId = (await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests`, { subject: 'Open' }), 'open cr')).id;
  p.specSlug = (
    await ok(admin().post(`/v1/orgs/${org.id}/openapi`, { slug: unique('spec'), source: { text: 'openapi: 3.1.0' } }), 'spec')
  ).slug;
  p.fieldName = (await ok(admin().post(`/v1/orgs/${org.id}/custom-fields`, { name: unique('f'), type: 'text' }), 'field')).name;
  p.translationId = (await ok(admin().post(`/v1/orgs/${org.id}/translations`, { title: 'T', languages: ['fr'] }), 'translation')).id;
  p.samlProviderId = (await ok(admin().post(`/v1/orgs/${org.id}/saml`, SAML_BODY), 'saml')).id;
  p.integrationName = (await ok(admin().post(`/v1/integrations/${unique('integ')}`, INTEGRATION_BODY(org.id)), 'integration')).name;
  p.installationId = (
    await ok(admin().post(`/v1/integrations/${p.integrationName}/installations`, { organization: org.id }), 'installation')
  ).id;
  p.userId = await newUser();
  p.teamId = await newTeam();
  await ok(admin().put(`/v1/orgs/${org.id}/teams/${p.teamId}/members/${p.userId}`, { role: 'member' }), 'team member');
  await ok(admin().post(`/v1/spaces/${p.spaceId}/permissions`, { role: 'read', users: [p.userId], teams: [p.teamId] }), 'space grant');
  await ok(admin().post(`/v1/collections/${p.collectionId}/permissions`, { role: 'read', users: [p.userId], teams: [p.teamId] }), 'grant');
  await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests/${p.changeRequestId}/requested-reviewers`, { users: [p.userId] }), 'rr');
  p.siteId = await newSite();
  p.siteSectionId = await newSection(p.siteId);
  await ok(
    admin().post(`/v1/integrations/${p.integrationName}/installations/${p.installationId}/sites`, { siteId: p.siteId }),
    'site installation',
  );
  p.otherSectionId = await newSection(p.siteId);
  p.siteSectionGroupId = (await ok(admin().post(`${site(p)}/section-groups`, { title: 'G' }), 'group')).id;
  p.siteSpaceId = (await ok(admin().post(`${site(p)}/site-spaces`, { spaceId: await newSpace() }), 'site-space')).id;
  p.shareLinkId = (await ok(admin().post(`${site(p)}/share-links`, { name: 'L' }), 'share link')).id;
  await ok(admin().post(`${site(p)}/permissions`, { role: 'read', users: [p.userId], teams: [p.teamId] }), 'site grant');
  p.inviteId = await newInviteLink();
  p.lookupTokenId = (await ok(admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Audit' }), 'lookup token')).id;
  // Where the shared fixtures' own requests stand: only the requests below are checked.
}, 120_000);
afterAll(async () => {
  await fx?.close();
  await t?.close();
});

it('catalogues every mutating route of the app, and nothing else', () => {
  const operations = mutatingOperations();
  expect(operations.length).toBeGreaterThan(100);
  const missing = operations.filter((op) => {
    const [method, path] = op.split(' ');
    return !routeAudit(method, toRouter(path)) && !(`${method} ${toRouter(path)}` in NOT_CHANGES);
  });
  expect(missing).toEqual([]);
  const routed = new Set(operations.map((op) => toRouter(op)));
  expect(catalogedRoutes().filter((route) => !routed.has(route))).toEqual([]);
  expect(Object.keys(NOT_CHANGES).filter((route) => !routed.has(route))).toEqual([]);
});

it('records one change through every catalogued route exactly once, with its action, actor, target and organization', async () => {
  const all = { ...rows, ...commentRows() };
  const operations = mutatingOperations().filter((op) => !(toRouter(op) in NOT_CHANGES));
  // A route without a row was never exercised: it fails here.
  expect(operations.filter((op) => !all[op])).toEqual([]);
  const failures: string[] = [];
  for (const op of operations) {
    const row = all[op];
    if (!row) continue;
    const [method, path] = op.split(' ');
    const entry = routeAudit(method, toRouter(path))!;
    let params: Params = p;
    try {
      if (row.fresh) params = { ...p, ...(await row.fresh(p)) };
    } catch (error) {
      failures.push(`${op}: ${(error as Error).message}`);
      continue;
    }
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
    const requestId = `audit-${newId(16)}`;
    const caller = row.as ? await row.as(params) : org.members.admin;
    let res: { status: number; body: any };
    if (row.send) res = await row.send(params, requestId);
    else {
      const payload = row.body?.(params) ?? (['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined);
      const answer = await t.app.inject({
        method: method as 'POST',
        url,
        headers: {
          authorization: `Bearer ${caller.token}`,
          'x-request-id': requestId,
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        payload: payload === undefined ? undefined : JSON.stringify(payload),
      });
      res = { status: answer.statusCode, body: answer.body ? JSON.parse(answer.body) : undefined };
    }
    if (res.status >= 300) {
      failures.push(`${op}: the change failed: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      continue;
    }
    const events = await sql<any>(
      t.orm.em.fork(),
      'select organization_id, action, actor_id, target_type, target_id, source from audit_event where execution_id = ? and action = ?',
      [requestId, entry.action],
    );
    if (events.length !== 1) {
      failures.push(`${op}: ${events.length} events of ${entry.action}`);
      continue;
    }
    const [event] = events;
    const routeParams = Object.fromEntries(Object.entries(params).filter(([name]) => path.includes(`{${name}}`)));
    const expectedTarget =
      row.target?.(params, res.body) ??
      (res.status === 201 && typeof res.body?.id === 'string' && entry.scope === 'request'
        ? { type: entry.action.split('.')[0].replace(/_/g, '-'), id: res.body.id }
        : routeTarget(toRouter(path), entry, routeParams));
    const expected = {
      organization_id: org.id,
      actor_id: row.actor?.(params, res.body) ?? caller.userId,
      target_type: expectedTarget.type,
      target_id: expectedTarget.id,
      source: path.startsWith('/hooks/') ? 'webhook' : 'api',
    };
    const got = {
      organization_id: event.organization_id,
      actor_id: event.actor_id,
      target_type: event.target_type,
      target_id: event.target_id,
      source: event.source,
    };
    if (JSON.stringify(got) !== JSON.stringify(expected))
      failures.push(`${op}: recorded ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  }
  expect(failures).toEqual([]);
}, 300_000);

it('records a merge applied by its job, caused by the request that asked for it', async () => {
  const cr = await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests`, { subject: 'Job merge' }), 'cr');
  await ok(
    admin().post(`/v1/spaces/${p.spaceId}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'insert_page', title: unique('Job'), document: { markdown: 'job' } }],
    }),
    'content',
  );
  const requestId = `audit-${newId(16)}`;
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/spaces/${p.spaceId}/change-requests/${cr.id}/merge`,
    headers: { authorization: `Bearer ${org.members.admin.token}`, 'x-request-id': requestId },
  });
  expect(res.statusCode).toBe(200);
  const rows = await eventually(async () => {
    const found = await sql<any>(
      t.orm.em.fork(),
      'select * from audit_event where correlation_id in (select correlation_id from audit_event where execution_id = ?) order by occurred_at, action',
      [requestId],
    );
    return found.length === 2 && found;
  });
  const request = rows.find((r: any) => r.action === 'change_request.merge_requested');
  const job = rows.find((r: any) => r.action === 'change_request.merged');
  expect(request).toMatchObject({ source: 'api', actor_id: org.members.admin.userId, target_id: cr.id });
  expect(job).toMatchObject({
    source: 'workflow',
    actor_id: org.members.admin.userId,
    organization_id: org.id,
    target_type: 'change-request',
    target_id: cr.id,
    caused_by_event_id: request.id,
  });
});

it('records what a content import job wrote, as the person who asked for it', async () => {
  const spaceId = await newSpace();
  const res = await admin().post(`/v1/spaces/${spaceId}/content/import`, { source: 'markdown', url: `${fx.base}/docs/audit.md` });
  expect(res.status).toBe(201);
  const rows = await sql<any>(t.orm.em.fork(), 'select * from audit_event where action = ? and target_id = ?', [
    'content_import.applied',
    spaceId,
  ]);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    source: 'workflow',
    actor_type: 'user',
    actor_id: org.members.admin.userId,
    organization_id: org.id,
    target_type: 'space',
    payload: { spaceId, revision: res.body.revision },
  });
});

it('records each OpenAPI spec version its job fetched, as the system, once per version', async () => {
  const slug = unique('spec');
  const text = (title: string) =>
    `openapi: 3.1.0\ninfo:\n  title: ${title}\n  version: '1'\npaths:\n  /ping:\n    get:\n      responses:\n        '200':\n          description: ok\n`;
  const versions = async (n: number) =>
    eventually(async () => {
      const found = await sql<any>(
        t.orm.em.fork(),
        'select * from audit_event where organization_id = ? and action = ? and target_id = ? order by occurred_at',
        [org.id, 'openapi_spec.version_recorded', slug],
      );
      return found.length >= n && found;
    }, 60_000);
  expect((await admin().post(`/v1/orgs/${org.id}/openapi`, { slug, source: { text: text('First') } })).status).toBe(201);
  const [first] = await versions(1);
  expect(first).toMatchObject({ source: 'workflow', actor_type: 'system', target_type: 'openapi-spec', payload: { specSlug: slug } });
  expect((await admin().put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { text: text('Second') } })).status).toBe(200);
  const all = await versions(2);
  expect(all).toHaveLength(2);
  expect(all[1].payload.version).not.toBe(first.payload.version);
}, 90_000);

it('records the purge of a deleted space as the system, once', async () => {
  const app = await startTestApp({ SPACE_RETENTION: '1h' });
  try {
    const local = await createTestOrg(app, 'Audited purge');
    const space = (await local.members.admin.api.post(`/v1/orgs/${local.id}/spaces`, { title: 'Short-lived' })).body;
    expect((await local.members.admin.api.delete(`/v1/spaces/${space.id}`)).status).toBe(205);
    const handle = app.temporal.workflow.getHandle(spaceDeletionWorkflowId(space.id));
    await handle.signal('purge-now');
    expect((await handle.result()).state).toBe('purged');
    const rows = await sql<any>(
      app.orm.em.fork(),
      'select * from audit_event where organization_id = ? and target_id = ? order by occurred_at',
      [local.id, space.id],
    );
    expect(rows.map((r: any) => [r.action, r.source, r.actor_type])).toEqual([
      ['space.created', 'api', 'user'],
      ['space.deleted', 'api', 'user'],
      ['space.purged', 'workflow', 'system'],
    ]);
  } finally {
    await app.close();
  }
});

it('records what a Git Sync import wrote, as the person who asked for it', async () => {
  const app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  const git = await startGitServer();
  try {
    const local = await createTestOrg(app, 'Audited Git Sync');
    const api = local.members.admin.api;
    const commit = git.commit('audited', { 'README.md': '# Audited\n\nFrom git.\n' });
    const space = (await api.post(`/v1/orgs/${local.id}/spaces`, { title: 'Synced' })).body;
    expect((await api.post(`/v1/spaces/${space.id}/git/import`, { url: git.url('audited'), ref: 'refs/heads/main' })).status).toBe(204);
    const rows = await eventually(async () => {
      const found = await sql<any>(app.orm.em.fork(), 'select * from audit_event where action = ? and target_id = ?', [
        'git_sync.imported',
        space.id,
      ]);
      return found.length > 0 && found;
    }, 60_000);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'workflow',
      actor_id: local.members.admin.userId,
      organization_id: local.id,
      target_type: 'space',
      payload: { spaceId: space.id, commit },
    });
  } finally {
    await git.close();
    await app.close();
  }
}, 90_000);
