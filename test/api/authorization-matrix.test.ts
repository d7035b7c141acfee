import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import LZString from 'lz-string';
import { issueToken } from '../../src/db/accounts.ts';
import { loadPageMap, writeRevision } from '../../src/db/content.ts';
import { Member } from '../../src/db/entities.ts';
import { setSpaceRevision } from '../../src/db/git-sync.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';
import { insertIntegrationEvents, recordDelivery } from '../../src/db/integration-events.ts';
import type { Role } from '../../src/domain/roles.ts';
import { idp, IDP_ENTITY_ID, IDP_SSO_URL } from '../support/saml-idp.ts';
import { PNG_2X3 } from '../support/fixtures.ts';
import { petstore31 } from '../support/openapi-fixtures.ts';
import { addMember, createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * The authorization matrix: every operation of the API (read from the service's own OpenAPI
 * document, so a new route without a row fails here), called as each role, a guest without any
 * grant, a disabled admin and an admin of another organization. One row per operation says who may
 * call it; every other caller must be refused with 403 (a member whose role is too low) or 404
 * (content the caller cannot see, any other organization, a disabled membership).
 *
 * "Allowed" means past authorization: a 2xx, or a 4xx other than 401/403/404 (a 400 or 409 for a
 * body that does not fit the shared fixture is still allowed).
 */

/**
 * `elsewhere`: the organization's own admin, holding a token that an SSO sign-in of another
 * organization minted: it works in that organization only, so here it is an outsider's.
 */
type Caller = Role | 'guest' | 'disabled' | 'outsider' | 'elsewhere' | 'visitor' | 'lookup';
const ROLES: Role[] = ['read', 'comment', 'edit', 'review', 'create', 'admin'];
/**
 * `visitor`: a site visitor's token (the `apiToken` of a URL lookup) of a published site that
 * publishes the fixture space; `lookup`: a site lookup token of the organization. Each works only
 * on the operations listed below for it, and is refused (403) on every other one.
 */
const CALLERS: Caller[] = ['outsider', 'elsewhere', 'disabled', 'guest', 'visitor', 'lookup', ...ROLES];
const LOOKUP_OPS = new Set([
  'POST /v1/urls/published',
  'GET /v1/urls/published',
  // The renderer sends its readers' events and agents' feedback with the lookup token.
  'POST /v1/orgs/{organizationId}/sites/{siteId}/insights/events',
  'POST /v1/orgs/{organizationId}/sites/{siteId}/agents/feedback',
  'POST /v1/orgs/{organizationId}/sites/{siteId}/agent-feedback',
]);
const VISITOR_OPS = new Set([
  ...LOOKUP_OPS,
  'POST /v1/integrations/{integrationName}/render',
  'GET /v1/integrations/{integrationName}/render',
  'GET /v1/spaces/{spaceId}',
  'GET /v1/spaces/{spaceId}/content',
  'GET /v1/spaces/{spaceId}/content/pages',
  'GET /v1/spaces/{spaceId}/content/page/{pageId}',
  'GET /v1/spaces/{spaceId}/content/files',
  'GET /v1/spaces/{spaceId}/content/files/{fileId}',
  'GET /v1/spaces/{spaceId}/content/files/{fileId}/download',
  'GET /v1/spaces/{spaceId}/content/reusable-contents/{reusableContentId}',
  'GET /v1/spaces/{spaceId}/content/page/{pageId}/meta-links',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/pages',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/meta-links',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/files',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document',
  'GET /v1/spaces/{spaceId}/embed',
  'GET /v1/users/{userId}',
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content',
  // The visitor's token is of another site than the fixture's: these answer 404 (see their rows).
  'GET /v1/orgs/{organizationId}/sites/{siteId}/published',
  'GET /v1/orgs/{organizationId}/sites/{siteId}/structure',
  'GET /v1/orgs/{organizationId}/sites/{siteId}/redirect',
  'POST /v1/orgs/{organizationId}/sites/{siteId}/search',
]);
const RANK: Record<Role, number> = { read: 1, comment: 2, edit: 3, review: 4, create: 5, admin: 6 };

/**
 * Who may call an operation:
 * - a Role: members with at least that role (organization role, or effective role on the content);
 *   lower roles get 403; a guest gets 403 on organization objects, 404 on content it was not granted;
 * - 'member': any member of the organization, guests included;
 * - 'user': any authenticated user (no organization in the path), outsiders and disabled included;
 * - 'public': no authentication needed (the operation has its own credential, e.g. a signature).
 */
type Rule = Role | 'member' | 'user' | 'public';

type Params = Record<string, string>;
interface Row {
  rule: Rule;
  /** Where the object lives: organization objects answer a guest 403, content answers it 404. */
  scope?: 'org' | 'content';
  body?: (p: Params) => unknown;
  query?: (p: Params) => string;
  /** For operations that consume their target (deletions, transfers): a fresh target per call. */
  fresh?: (p: Params) => Promise<Params>;
  /** The status every caller gets (the operation checks a credential of its own, or nothing resolves). */
  everyone?: 401 | 403 | 404;
  /** Exceptions for one caller: the status class expected ('allow' or a status). */
  except?: Partial<Record<Caller, 'allow' | 403 | 404>>;
}

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let disabledToken: string;
let elsewhereToken: string;
let visitorToken: string;
let lookupToken: string;
const p: Params = {};
const admin = () => org.members.admin.api;
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

async function ok<T = any>(res: Promise<{ status: number; body: any }>, what: string): Promise<T> {
  const r = await res;
  if (r.status >= 300) throw new Error(`fixture ${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

const newSpace = async () => (await ok(admin().post(`/v1/orgs/${org.id}/spaces`, { title: unique('Space') }), 'space')).id as string;
const newCollection = async () =>
  (await ok(admin().post(`/v1/orgs/${org.id}/collections`, { title: unique('Coll') }), 'collection')).id as string;
const newSite = async () => (await ok(admin().post(`/v1/orgs/${org.id}/sites`, { title: unique('Site') }), 'site')).id as string;
const site = (q: Params) => `/v1/orgs/${org.id}/sites/${q.siteId}`;
/** A new site of the organization with a custom hostname: the hostname. */
async function newHostnameSite() {
  const hostname = `${unique('docs')}.example.com`;
  await ok(admin().patch(`/v1/orgs/${org.id}/sites/${await newSite()}`, { hostname }), 'site hostname');
  return hostname;
}
/** A reader's page view as GitBook's renderer tracks it. */
const INSIGHTS_EVENT = () => ({
  type: 'page_view',
  session: { visitorId: 'v', sessionId: 's', cookies: {}, userAgent: 'Mozilla/5.0', language: 'en', referrer: null },
  location: {
    url: 'https://docs.example.com/page',
    siteSection: null,
    siteSpace: null,
    siteShareKey: null,
    space: null,
    revision: null,
    page: null,
  },
});

async function newComment(spaceId: string, crId?: string) {
  const base = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}` : `/v1/spaces/${spaceId}`;
  return (await ok(admin().post(`${base}/comments`, { page: p.pageId, body: { markdown: 'Hello' } }), 'comment')).id as string;
}
async function newReply(spaceId: string, commentId: string, crId?: string) {
  const base = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}` : `/v1/spaces/${spaceId}`;
  return (await ok(admin().post(`${base}/comments/${commentId}/replies`, { body: { markdown: 'Reply' } }), 'reply')).id as string;
}
async function newUser(role: Role = 'read') {
  const extra = await createTestOrg(t, 'Extra');
  await addMember(t, org.id, extra.members.read.userId, role);
  return extra.members.read.userId;
}
async function newTeam() {
  return (await ok(admin().put(`/v1/orgs/${org.id}/teams`, { title: unique('Team'), members: [org.members.read.userId] }), 'team'))
    .id as string;
}
async function newInviteLink(role: Role | null = 'read') {
  return (await ok(admin().post(`/v1/orgs/${org.id}/link-invites`, { role }), 'invite link')).id as string;
}
async function newSection(siteId: string) {
  return (
    await ok(admin().post(`/v1/orgs/${org.id}/sites/${siteId}/sections`, { spaceId: await newSpace(), title: unique('S') }), 'section')
  ).id as string;
}

const SPEC = JSON.stringify(petstore31);
const REDIRECT_BODY = (source: string) => ({ source, destination: { kind: 'external', url: 'https://example.com/' } });
const SAML_BODY = { label: 'IdP', entityID: IDP_ENTITY_ID, certificate: idp.cert, ssoURL: IDP_SSO_URL };
const INTEGRATION_BODY = (orgId: string) => ({
  title: 'Integration',
  description: 'Does things',
  // Answers every event, a render included, with ContentKit's empty outcome.
  script: "export default { async fetch() { return Response.json({ type: 'complete', returnValue: {} }); } }",
  organization: orgId,
});
const RENDER_REQUEST = (spaceId: string) => ({
  componentId: 'block',
  props: {},
  context: { type: 'document', spaceId, editable: false, theme: 'light' },
});

const rows: Record<string, Row> = {
  'GET /v1/user': { rule: 'user' },
  'GET /v1/orgs': { rule: 'user' },
  'GET /v1/orgs/{organizationId}': { rule: 'member' },
  'PATCH /v1/orgs/{organizationId}': { rule: 'admin', scope: 'org', body: () => ({ mergeRules: { type: 'none' } }) },

  'GET /v1/orgs/{organizationId}/collections': { rule: 'member' },
  'POST /v1/orgs/{organizationId}/collections': { rule: 'create', scope: 'org', body: () => ({ title: 'New collection' }) },
  'GET /v1/collections/{collectionId}': { rule: 'read' },
  'PATCH /v1/collections/{collectionId}': { rule: 'admin', body: () => ({ description: 'Changed' }) },
  'DELETE /v1/collections/{collectionId}': { rule: 'admin', fresh: async () => ({ collectionId: await newCollection() }) },
  'GET /v1/collections/{collectionId}/spaces': { rule: 'read' },
  'POST /v1/collections/{collectionId}/move': {
    rule: 'admin',
    body: () => ({ position: { after: { type: 'collection', collection: p.otherCollectionId } } }),
  },
  'POST /v1/collections/{collectionId}/transfer': {
    rule: 'admin',
    body: () => ({ organization: p.targetOrgId }),
    fresh: async () => ({ collectionId: await newCollection() }),
  },

  'GET /v1/orgs/{organizationId}/spaces': { rule: 'member' },
  'POST /v1/orgs/{organizationId}/spaces': { rule: 'create', scope: 'org', body: () => ({ title: 'New space' }) },
  'GET /v1/spaces/{spaceId}': { rule: 'read' },
  'PATCH /v1/spaces/{spaceId}': { rule: 'edit', body: () => ({ emoji: '1f600' }) },
  'DELETE /v1/spaces/{spaceId}': { rule: 'admin', fresh: async () => ({ spaceId: await newSpace() }) },
  // A deleted space is visible to admins only: below that it does not exist.
  'POST /v1/spaces/{spaceId}/restore': {
    rule: 'admin',
    except: { read: 404, comment: 404, edit: 404, review: 404, create: 404 },
    fresh: async () => {
      const spaceId = await newSpace();
      await ok(admin().delete(`/v1/spaces/${spaceId}`), 'deletion');
      return { spaceId };
    },
  },
  'POST /v1/spaces/{spaceId}/duplicate': { rule: 'create' },
  'POST /v1/spaces/{spaceId}/move': { rule: 'admin', body: () => ({ position: { before: { type: 'space', space: p.otherSpaceId } } }) },
  'POST /v1/spaces/{spaceId}/transfer': {
    rule: 'admin',
    body: () => ({ organization: p.targetOrgId }),
    fresh: async () => ({ spaceId: await newSpace() }),
  },

  'GET /v1/spaces/{spaceId}/content': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/pages': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/page/{pageId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/files': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/files/{fileId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/files/{fileId}/download': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content': { rule: 'read' },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content': {
    rule: 'edit',
    body: () => ({ changes: [{ operation: 'update_page', page: p.pageId, title: 'Renamed' }] }),
  },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/download': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/reusable-contents/{reusableContentId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/page/{pageId}/meta-links': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/meta-links': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/pages': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/meta-links': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/files': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/changes': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/changes': { rule: 'read' },

  'GET /v1/spaces/{spaceId}/change-requests': { rule: 'read' },
  'GET /v1/orgs/{organizationId}/change-requests': { rule: 'member' },
  'POST /v1/spaces/{spaceId}/change-requests': { rule: 'edit', body: () => ({ subject: 'Matrix' }) },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}': { rule: 'read' },
  'PATCH /v1/spaces/{spaceId}/change-requests/{changeRequestId}': { rule: 'review', body: () => ({ subject: 'Renamed' }) },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge': {
    rule: 'review',
    fresh: async (q) => ({
      changeRequestId: (await ok(admin().post(`/v1/spaces/${q.spaceId}/change-requests`, { subject: 'M' }), 'cr')).id,
    }),
  },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/update': { rule: 'edit' },
  // The fixture's change request is the admin's own: an author may ask for changes, never approve.
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/reviews': { rule: 'read' },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/reviews': { rule: 'review', body: () => ({ status: 'changes-requested' }) },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers': { rule: 'read' },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers': { rule: 'edit', body: () => ({ users: [p.userId] }) },
  'DELETE /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}': { rule: 'edit' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/contributors': { rule: 'read' },

  'GET /v1/orgs/{organizationId}/openapi': { rule: 'read', scope: 'org' },
  'POST /v1/orgs/{organizationId}/openapi': {
    rule: 'create',
    scope: 'org',
    body: () => ({ slug: unique('spec'), source: { text: 'openapi: 3.1.0' } }),
  },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}': { rule: 'read', scope: 'org' },
  'PUT /v1/orgs/{organizationId}/openapi/{specSlug}': {
    rule: 'create',
    scope: 'org',
    body: () => ({ source: { text: 'openapi: 3.1.0' } }),
  },
  'DELETE /v1/orgs/{organizationId}/openapi/{specSlug}': {
    rule: 'create',
    scope: 'org',
    fresh: async () => ({
      specSlug: (await ok(admin().post(`/v1/orgs/${org.id}/openapi`, { slug: unique('spec'), source: { text: 'openapi: 3.1.0' } }), 'spec'))
        .slug,
    }),
  },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content': { rule: 'read', scope: 'org' },

  'GET /v1/orgs/{organizationId}/custom-fields': { rule: 'member' },
  'POST /v1/orgs/{organizationId}/custom-fields': { rule: 'admin', scope: 'org', body: () => ({ name: unique('f'), type: 'text' }) },
  'GET /v1/orgs/{organizationId}/custom-fields/{fieldName}': { rule: 'member' },
  'PATCH /v1/orgs/{organizationId}/custom-fields/{fieldName}': { rule: 'admin', scope: 'org', body: () => ({ title: 'Field' }) },
  'DELETE /v1/orgs/{organizationId}/custom-fields/{fieldName}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => ({
      fieldName: (await ok(admin().post(`/v1/orgs/${org.id}/custom-fields`, { name: unique('f'), type: 'text' }), 'field')).name,
    }),
  },
  'GET /v1/spaces/{spaceId}/custom-fields': { rule: 'read' },
  'PATCH /v1/spaces/{spaceId}/custom-fields': { rule: 'edit', body: () => ({ values: { [p.fieldName]: { value: 'x' } } }) },

  'GET /v1/orgs/{organizationId}/translations': { rule: 'read', scope: 'org' },
  'POST /v1/orgs/{organizationId}/translations': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ title: 'T', languages: ['fr'] }),
  },
  'GET /v1/orgs/{organizationId}/translations/{translationId}': { rule: 'read', scope: 'org' },
  'PUT /v1/orgs/{organizationId}/translations/{translationId}': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ title: 'T2', languages: ['de'] }),
  },
  'DELETE /v1/orgs/{organizationId}/translations/{translationId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => ({
      translationId: (await ok(admin().post(`/v1/orgs/${org.id}/translations`, { title: 'T', languages: ['fr'] }), 'translation')).id,
    }),
  },

  'GET /v1/orgs/{organizationId}/saml': { rule: 'admin', scope: 'org' },
  'POST /v1/orgs/{organizationId}/saml': { rule: 'admin', scope: 'org', body: () => SAML_BODY },
  'GET /v1/orgs/{organizationId}/saml/{samlProviderId}': { rule: 'admin', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}': { rule: 'admin', scope: 'org', body: () => ({ label: 'IdP 2' }) },
  'DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => ({ samlProviderId: (await ok(admin().post(`/v1/orgs/${org.id}/saml`, SAML_BODY), 'saml')).id }),
  },
  'GET /v1/orgs/{organizationId}/sso': { rule: 'member' },
  'GET /sso/saml/{samlProviderId}': { rule: 'public' },
  'GET /sso/saml/{samlProviderId}/start': { rule: 'public' },
  'POST /sso/saml/{samlProviderId}/acs': { rule: 'public', body: () => ({ SAMLResponse: 'bm90IGEgcmVzcG9uc2U=' }) },

  'GET /v1/integrations': { rule: 'user' },
  'GET /v1/integrations/{integrationName}': { rule: 'member' },
  'POST /v1/integrations/{integrationName}': { rule: 'admin', scope: 'org', body: () => INTEGRATION_BODY(org.id) },
  'DELETE /v1/integrations/{integrationName}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => ({
      integrationName: (await ok(admin().post(`/v1/integrations/${unique('integ')}`, INTEGRATION_BODY(org.id)), 'integration')).name,
    }),
  },
  'PUT /v1/integrations/{integrationName}/dev': { rule: 'admin', scope: 'org', body: () => ({ tunnelUrl: 'https://tunnel.example.com' }) },
  'DELETE /v1/integrations/{integrationName}/dev': { rule: 'admin', scope: 'org' },
  'GET /v1/integrations/{integrationName}/assets/{asset}': { rule: 'public' },
  'GET /v1/integrations/{integrationName}/installations': { rule: 'member' },
  'POST /v1/integrations/{integrationName}/installations': { rule: 'admin', scope: 'org', body: () => ({ organization: org.id }) },
  'GET /v1/integrations/{integrationName}/installations/{installationId}': { rule: 'admin', scope: 'org' },
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ configuration: {} }),
  },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => {
      const integrationName = (await ok(admin().post(`/v1/integrations/${unique('integ')}`, INTEGRATION_BODY(org.id)), 'integration')).name;
      const installation = await ok(
        admin().post(`/v1/integrations/${integrationName}/installations`, { organization: org.id }),
        'installation',
      );
      return { integrationName, installationId: installation.id };
    },
  },
  // Tokens acting as an installation: minted for the integration, by admins of its owner (the fixture's organization).
  'POST /v1/integrations/{integrationName}/installations/{installationId}/tokens': { rule: 'admin', scope: 'org' },
  'GET /v1/integrations/{integrationName}/events': { rule: 'admin', scope: 'org' },
  'POST /v1/integrations/{integrationName}/tasks': { rule: 'admin', scope: 'org', body: () => ({ task: { kind: 'matrix' } }) },
  // A block in a page of the fixture space, for the fixture's installation enabled on it: whoever reads the space.
  'POST /v1/integrations/{integrationName}/render': { rule: 'read', scope: 'content', body: () => RENDER_REQUEST(p.spaceId) },
  'GET /v1/integrations/{integrationName}/render': {
    rule: 'read',
    scope: 'content',
    query: () => `request=${LZString.compressToEncodedURIComponent(JSON.stringify(RENDER_REQUEST(p.spaceId)))}`,
  },
  'GET /v1/integrations/{integrationName}/events/{eventId}': { rule: 'admin', scope: 'org' },
  'GET /v1/integrations/{integrationName}/spaces': { rule: 'member' },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/spaces': { rule: 'admin', scope: 'org' },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': { rule: 'admin', scope: 'org' },
  // Enabling, configuring and removing an installation on a space: the space's admins.
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': {
    rule: 'admin',
    scope: 'content',
    body: () => ({ configuration: {} }),
  },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': {
    rule: 'admin',
    scope: 'content',
    fresh: async (q) => {
      const spaceId = await newSpace();
      await ok(
        admin().patch(`/v1/integrations/${q.integrationName}/installations/${q.installationId}/spaces/${spaceId}`, {}),
        'space installation',
      );
      return { spaceId };
    },
  },
  'GET /v1/integrations/{integrationName}/sites': { rule: 'member' },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/sites': { rule: 'admin', scope: 'org' },
  // The fixture's site already has the installation: the site's admins get 409, past authorization.
  'POST /v1/integrations/{integrationName}/installations/{installationId}/sites': {
    rule: 'admin',
    scope: 'org',
    body: (q) => ({ siteId: q.siteId }),
  },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': { rule: 'admin', scope: 'org' },
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ configuration: {} }),
  },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async (q) => {
      const siteId = await newSite();
      await ok(
        admin().post(`/v1/integrations/${q.integrationName}/installations/${q.installationId}/sites`, { siteId }),
        'site installation',
      );
      return { siteId };
    },
  },
  'GET /v1/orgs/{organizationId}/integrations': { rule: 'member' },
  'GET /v1/orgs/{organizationId}/integrations/{integrationName}/installation_status': { rule: 'member' },
  'GET /v1/orgs/{organizationId}/installations': { rule: 'admin', scope: 'org' },
  'GET /v1/orgs/{organizationId}/integrations/installations-status': { rule: 'member' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/integrations': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/integration-scripts': { rule: 'read', scope: 'org' },

  'GET /v1/orgs/{organizationId}/members': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/members/{userId}': { rule: 'read', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/members/{userId}': { rule: 'admin', scope: 'org', body: () => ({ role: 'read' }) },
  'DELETE /v1/orgs/{organizationId}/members/{userId}': { rule: 'admin', scope: 'org', fresh: async () => ({ userId: await newUser() }) },
  'POST /v1/orgs/{organizationId}/ping': { rule: 'member' },
  'POST /v1/orgs/{organizationId}/members/{userId}/sso': { rule: 'admin', scope: 'org' },
  'GET /v1/orgs/{organizationId}/members/{userId}/spaces': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/members/{userId}/teams': { rule: 'read', scope: 'org' },

  'POST /v1/orgs/{organizationId}/invites': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ emails: [`${unique('nobody')}@example.com`], role: 'read' }),
  },
  'GET /v1/orgs/{organizationId}/link-invites': { rule: 'admin', scope: 'org' },
  'POST /v1/orgs/{organizationId}/link-invites': { rule: 'admin', scope: 'org', body: () => ({ role: 'read' }) },
  'GET /v1/orgs/{organizationId}/link-invites/{inviteId}': { rule: 'admin', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/link-invites/{inviteId}': { rule: 'admin', scope: 'org', body: () => ({ role: 'read' }) },
  'DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => ({ inviteId: await newInviteLink() }),
  },
  // Any signed-in user may join with a link. Allowed callers get a fresh guest link (joining never
  // lowers a role, so members stay as they are); the shared link is disabled, so the outsider is
  // refused instead of becoming a member for the rows after this one (its successful join is in
  // test/api/invites.test.ts). A token scoped to another organization does not reach this one, and
  // a disabled membership is not revived.
  'POST /v1/orgs/{organizationId}/invites/{inviteId}': {
    rule: 'user',
    fresh: async () => ({ inviteId: await newInviteLink(null) }),
    except: { outsider: 403, elsewhere: 404, disabled: 403 },
  },
  // Invitations by email are their invited user's own: an id that is not one of the caller's
  // invitations is 404 to everyone (accepting and declining are in test/security/invites.test.ts).
  'GET /v1/user/invites': { rule: 'user' },
  'POST /v1/user/invites/{inviteId}': { rule: 'user', everyone: 404 },
  'DELETE /v1/user/invites/{inviteId}': { rule: 'user', everyone: 404 },

  'GET /v1/orgs/{organizationId}/teams': { rule: 'read', scope: 'org' },
  'PUT /v1/orgs/{organizationId}/teams': { rule: 'admin', scope: 'org', body: () => ({ title: unique('Team') }) },
  'GET /v1/orgs/{organizationId}/teams/{teamId}': { rule: 'read', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/teams/{teamId}': { rule: 'admin', scope: 'org', body: () => ({ title: 'Renamed team' }) },
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}': { rule: 'admin', scope: 'org', fresh: async () => ({ teamId: await newTeam() }) },
  'GET /v1/orgs/{organizationId}/teams/{teamId}/members': { rule: 'read', scope: 'org' },
  'PUT /v1/orgs/{organizationId}/teams/{teamId}/members': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ add: [org.members.comment.userId] }),
  },
  'PUT /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}': { rule: 'admin', scope: 'org', body: () => ({ role: 'member' }) },
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => ({ teamId: await newTeam() }),
  },

  'POST /v1/spaces/{spaceId}/permissions': { rule: 'admin', body: () => ({ role: 'read', users: [p.userId] }) },
  'GET /v1/spaces/{spaceId}/permissions/users': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/permissions/teams': { rule: 'read' },
  'PATCH /v1/spaces/{spaceId}/permissions/users/{userId}': { rule: 'admin', body: () => ({ role: 'read' }) },
  'DELETE /v1/spaces/{spaceId}/permissions/users/{userId}': { rule: 'admin' },
  'PATCH /v1/spaces/{spaceId}/permissions/teams/{teamId}': { rule: 'admin', body: () => ({ role: 'read' }) },
  'DELETE /v1/spaces/{spaceId}/permissions/teams/{teamId}': { rule: 'admin' },
  'POST /v1/collections/{collectionId}/permissions': { rule: 'admin', body: () => ({ role: 'read', users: [p.userId] }) },
  'GET /v1/collections/{collectionId}/permissions/users': { rule: 'read' },
  'GET /v1/collections/{collectionId}/permissions/teams': { rule: 'read' },
  'PATCH /v1/collections/{collectionId}/permissions/users/{userId}': { rule: 'admin', body: () => ({ role: 'read' }) },
  'DELETE /v1/collections/{collectionId}/permissions/users/{userId}': { rule: 'admin' },
  'PATCH /v1/collections/{collectionId}/permissions/teams/{teamId}': { rule: 'admin', body: () => ({ role: 'read' }) },
  'DELETE /v1/collections/{collectionId}/permissions/teams/{teamId}': { rule: 'admin' },

  'GET /v1/spaces/{spaceId}/search': { rule: 'read', query: () => 'query=hello' },
  'GET /v1/spaces/{spaceId}/links': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/page/{pageId}/links': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/content/files/{fileId}/backlinks': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/links': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf': { rule: 'read' },
  'GET /v1/spaces/{spaceId}/pdf': { rule: 'read' },
  // Its credential is the signature: a bad one is refused whoever asks.
  'GET /pdf/{sha256}': { rule: 'public', query: () => 'expires=1&signature=x', everyone: 403 },

  'POST /v1/spaces/{spaceId}/content/import': { rule: 'edit', body: () => ({ source: 'markdown', url: 'https://example.invalid/x.md' }) },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import': {
    rule: 'edit',
    body: () => ({ source: 'markdown', url: 'https://example.invalid/x.md' }),
  },

  // Git Sync: triggering a sync needs edit; the import leaves the repository on the space, so its info reads for read.
  'POST /v1/spaces/{spaceId}/git/import': {
    rule: 'edit',
    body: () => ({ url: 'https://example.invalid/docs.git', ref: 'refs/heads/main' }),
  },
  'POST /v1/spaces/{spaceId}/git/export': {
    rule: 'edit',
    body: () => ({ url: 'https://example.invalid/docs.git', ref: 'refs/heads/main', commitMessage: 'Export' }),
  },
  'GET /v1/spaces/{spaceId}/git/info': { rule: 'read' },
  'PUT /v1/spaces/{spaceId}/git/webhook': {
    rule: 'admin',
    body: () => ({
      provider: 'github',
      url: 'https://example.invalid/docs.git',
      branch: 'main',
      secret: 'a-webhook-secret-of-32-characters',
    }),
  },
  // Its credential is the push signature: a delivery without a valid one is refused whoever sends it.
  'POST /hooks/git/{spaceId}': { rule: 'public', everyone: 401, body: () => ({ ref: 'refs/heads/main' }) },

  // A guest lists the sites granted to them (none here): allowed, with an empty list.
  'GET /v1/orgs/{organizationId}/sites': { rule: 'read', scope: 'org', except: { guest: 'allow' } },
  'POST /v1/orgs/{organizationId}/sites': { rule: 'admin', scope: 'org', body: () => ({ title: 'New site' }) },
  'GET /v1/orgs/{organizationId}/sites/{siteId}': { rule: 'read', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}': { rule: 'admin', scope: 'org', body: () => ({ title: 'Renamed site' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}': { rule: 'admin', scope: 'org', fresh: async () => ({ siteId: await newSite() }) },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/publish': { rule: 'admin', scope: 'org' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/unpublish': { rule: 'admin', scope: 'org' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema': { rule: 'read', scope: 'org' },
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ jsonSchema: { type: 'object', properties: {} } }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth': { rule: 'admin', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ fallbackURL: 'https://example.com/login' }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate': { rule: 'admin', scope: 'org' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/publishing/preview': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/customization': { rule: 'read', scope: 'org' },
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/customization': { rule: 'admin', scope: 'org', body: () => ({ title: 'Custom' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/customization': { rule: 'admin', scope: 'org', body: () => ({ title: 'Custom 2' }) },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/published': { rule: 'read', scope: 'content', except: { visitor: 404 } },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/structure': { rule: 'read', scope: 'content', except: { visitor: 404 } },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/sections': { rule: 'read', scope: 'content' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/sections': {
    rule: 'create',
    scope: 'org',
    body: () => ({ spaceId: p.spaceId, title: 'Section' }),
  },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': {
    rule: 'create',
    scope: 'org',
    body: () => ({ title: 'Renamed section' }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': {
    rule: 'create',
    scope: 'org',
    fresh: async (q) => ({ siteSectionId: await newSection(q.siteId) }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move': {
    rule: 'create',
    scope: 'org',
    body: () => ({ position: { after: { type: 'site-section', siteSection: p.otherSectionId } } }),
  },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort': {
    rule: 'create',
    scope: 'org',
    body: () => ({
      item: { type: 'site-section', id: p.siteSectionId },
      position: { after: { type: 'site-section', id: p.otherSectionId } },
    }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/section-groups': { rule: 'read', scope: 'org' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups': { rule: 'create', scope: 'org', body: () => ({ title: 'Group' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': {
    rule: 'create',
    scope: 'org',
    body: () => ({ title: 'G2' }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': {
    rule: 'create',
    scope: 'org',
    fresh: async (q) => ({ siteSectionGroupId: (await ok(admin().post(`${site(q)}/section-groups`, { title: 'G' }), 'group')).id }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections': {
    rule: 'create',
    scope: 'org',
    body: () => ({ sectionId: p.siteSectionId }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}': {
    rule: 'create',
    scope: 'org',
    fresh: async (q) => {
      const siteSectionId = await newSection(q.siteId);
      await ok(admin().post(`${site(q)}/section-groups/${q.siteSectionGroupId}/sections`, { sectionId: siteSectionId }), 'grouping');
      return { siteSectionId };
    },
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move': {
    rule: 'create',
    scope: 'org',
    body: () => ({ position: { after: { type: 'site-section', id: p.otherSectionId } } }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/site-spaces': { rule: 'read', scope: 'content' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces': { rule: 'create', scope: 'org', body: () => ({ spaceId: p.spaceId }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}': {
    rule: 'create',
    scope: 'org',
    body: () => ({ hidden: false }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}': {
    rule: 'create',
    scope: 'org',
    fresh: async (q) => ({
      siteSpaceId: (await ok(admin().post(`${site(q)}/site-spaces`, { spaceId: await newSpace() }), 'site-space')).id,
    }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move': {
    rule: 'create',
    scope: 'org',
    body: () => ({ position: {} }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/share-links': { rule: 'admin', scope: 'org' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/share-links': { rule: 'admin', scope: 'org', body: () => ({ name: 'Link' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ name: 'Link 2' }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async (q) => ({ shareLinkId: (await ok(admin().post(`${site(q)}/share-links`, { name: 'L' }), 'share-link')).id }),
  },

  'POST /v1/urls/published': { rule: 'user', everyone: 404, body: () => ({ url: 'http://docs.test/nowhere' }) },
  'GET /v1/urls/published': { rule: 'user', everyone: 404, query: () => 'url=http%3A%2F%2Fdocs.test%2Fnowhere' },
  'GET /v1/urls/content': {
    rule: 'read',
    scope: 'content',
    query: () => `url=${encodeURIComponent(`http://docs.test/app/spaces/${p.spaceId}`)}`,
  },
  'GET /v1/urls/embed': { rule: 'user', everyone: 404, query: () => 'url=http%3A%2F%2Fdocs.test%2Fnowhere' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/permissions': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ role: 'read', users: [p.userId] }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/permissions/aggregate': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/permissions/users': { rule: 'read', scope: 'org' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/permissions/teams': { rule: 'read', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/permissions/users/{userId}': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ role: 'read' }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/permissions/users/{userId}': { rule: 'admin', scope: 'org' },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/permissions/teams/{teamId}': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ role: 'read' }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/permissions/teams/{teamId}': { rule: 'admin', scope: 'org' },
  // Custom hostnames: those who cannot manage the site get 404, as for a hostname no site uses.
  'GET /v1/custom-hostnames/{hostname}': {
    rule: 'admin',
    scope: 'content',
    except: { read: 404, comment: 404, edit: 404, review: 404, create: 404 },
  },
  'PATCH /v1/custom-hostnames/{hostname}': {
    rule: 'admin',
    scope: 'content',
    except: { read: 404, comment: 404, edit: 404, review: 404, create: 404 },
  },
  'DELETE /v1/custom-hostnames/{hostname}': {
    rule: 'admin',
    scope: 'content',
    except: { read: 404, comment: 404, edit: 404, review: 404, create: 404 },
    fresh: async () => ({ hostname: await newHostnameSite() }),
  },
  'GET /v1/orgs/{organizationId}/site-lookup-tokens': { rule: 'admin', scope: 'org' },
  'GET /v1/orgs/{organizationId}/audit-events': { rule: 'admin', scope: 'org' },
  'GET /v1/orgs/{organizationId}/audit-events/{auditEventId}': { rule: 'admin', scope: 'org' },
  'GET /v1/orgs/{organizationId}/audit-event-actions': { rule: 'admin', scope: 'org' },
  'POST /v1/orgs/{organizationId}/site-lookup-tokens': { rule: 'admin', scope: 'org', body: () => ({ label: 'Renderer' }) },
  'DELETE /v1/orgs/{organizationId}/site-lookup-tokens/{lookupTokenId}': {
    rule: 'admin',
    scope: 'org',
    fresh: async () => ({
      lookupTokenId: (await ok(admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Revoked' }), 'lookup token')).id,
    }),
  },
  'GET /files/{spaceId}/{fileId}/download': { rule: 'public', query: () => 'revision=x&expires=1&signature=x', everyone: 403 },
  'GET /v1/users/{userId}': { rule: 'member' },
  'GET /v1/spaces/{spaceId}/embed': { rule: 'read', query: () => 'url=https%3A%2F%2Fexample.com%2Fvideo' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/redirects': { rule: 'read', scope: 'org' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/redirects': { rule: 'create', scope: 'org', body: () => REDIRECT_BODY('/matrix-created') },
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/redirects': {
    rule: 'create',
    scope: 'org',
    body: () => ({ redirects: [REDIRECT_BODY('/matrix-bulk')] }),
  },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}': {
    rule: 'create',
    scope: 'org',
    body: () => ({ permanent: true }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}': {
    rule: 'create',
    scope: 'org',
    fresh: async (q) => ({
      siteRedirectId: (await ok(admin().post(`${site(q)}/redirects`, REDIRECT_BODY(`/${unique('gone')}`)), 'redirect')).id,
    }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/redirect': {
    except: { visitor: 404 },
    rule: 'read',
    scope: 'content',
    query: () => 'source=%2Fmatrix-fixture',
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/search': {
    except: { visitor: 404 },
    rule: 'read',
    scope: 'content',
    body: () => ({ query: 'hello' }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/insights/events': {
    // The renderer's lookup token, or a member; not a visitor's token.
    except: { visitor: 403 },
    rule: 'read',
    scope: 'org',
    body: () => ({ events: [INSIGHTS_EVENT()] }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/insights/events/aggregate': {
    rule: 'admin',
    scope: 'org',
    body: () => ({ range: 'last7Days', groupBy: [{ column: 'urlPath' }] }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/insights/visitor-segments': { rule: 'admin', scope: 'org' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/agents/feedback': {
    // The renderer's lookup token, or a member; not a visitor's token.
    except: { visitor: 403 },
    rule: 'read',
    scope: 'org',
    body: () => ({ subject: { kind: 'generic' }, feedback: { category: 'usability', summary: 'Matrix' } }),
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/agent-feedback': {
    // The renderer's lookup token, or a member; not a visitor's token.
    except: { visitor: 403 },
    rule: 'read',
    scope: 'org',
    body: () => ({ feedback: 'Matrix', url: 'https://docs.example.com/page', spaceId: 'space', pageId: 'page' }),
  },
};

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: randomBytes(32).toString('base64') });
  [org, other] = await Promise.all([createTestOrg(t, 'Matrix'), createTestOrg(t, 'Elsewhere')]);
  // A member of the organization whose membership is disabled: an admin, to show the role no longer counts.
  const locked = await createTestOrg(t, 'Locked out');
  await addMember(t, org.id, locked.members.read.userId, 'admin');
  await t.orm.em.fork().nativeUpdate(Member, { organizationId: org.id, userId: locked.members.read.userId }, { disabled: true });
  disabledToken = locked.members.read.token;
  elsewhereToken = (await issueToken(t.orm.em.fork(), org.members.admin.userId, 'SAML sign-in: elsewhere', other.id)).token;

  p.organizationId = org.id;
  // Where transfers go: an organization the fixture admin also administers.
  const target = await createTestOrg(t, 'Transfer target');
  await addMember(t, target.id, org.members.admin.userId, 'admin');
  p.targetOrgId = target.id;
  p.collectionId = await newCollection();
  p.otherCollectionId = await newCollection();
  p.spaceId = await newSpace();
  p.otherSpaceId = await newSpace();
  const cr = await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests`, { subject: 'Fixture' }), 'change request');
  p.changeRequestId = cr.id;
  const edited = await ok(
    admin().post(`/v1/spaces/${p.spaceId}/change-requests/${cr.id}/content?compat=false`, {
      changes: [
        { operation: 'insert_page', title: 'Hello', document: { markdown: '# Hello\n\nworld' } },
        { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
      ],
    }),
    'content',
  );
  p.pageId = edited.changes.find((c: any) => c.object === 'page' || c.page)?.page?.id;
  await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests/${cr.id}/merge`), 'merge');
  // A reusable content, as Git Sync writes them (the API has no operation that makes one).
  p.reusableContentId = 'matrix-include';
  p.revisionId = await transaction(forkEm(t.orm), async (tx) => {
    const current = (await ok(admin().get(`/v1/spaces/${p.spaceId}`), 'space')).revision as string;
    const pages = await loadPageMap(tx, current, true);
    const reusableContents = [{ id: p.reusableContentId, title: 'Include', path: '.gitbook/includes/include.md', markdown: 'Shared\n' }];
    const id = await writeRevision(tx, {
      spaceId: p.spaceId,
      parents: [current],
      type: 'edits',
      base: { revisionId: current, pages },
      pages,
      reusableContents,
    });
    await setSpaceRevision(tx, p.spaceId, id);
    return id;
  });
  p.changeRequestId = (await ok(admin().post(`/v1/spaces/${p.spaceId}/change-requests`, { subject: 'Open' }), 'open cr')).id;
  const files = await ok(admin().get(`/v1/spaces/${p.spaceId}/content/files`), 'files');
  p.fileId = files.items[0].id;
  if (!p.pageId) p.pageId = (await ok(admin().get(`/v1/spaces/${p.spaceId}/content/pages`), 'pages')).pages[0].id;
  p.pagePath = (await ok(admin().get(`/v1/spaces/${p.spaceId}/content/page/${p.pageId}`), 'page')).path;

  p.commentId = await newComment(p.spaceId);
  p.commentReplyId = await newReply(p.spaceId, p.commentId);
  p.crCommentId = await newComment(p.spaceId, p.changeRequestId);
  p.crCommentReplyId = await newReply(p.spaceId, p.crCommentId, p.changeRequestId);

  const spec = await ok(admin().post(`/v1/orgs/${org.id}/openapi`, { slug: unique('spec'), source: { text: SPEC } }), 'spec');
  p.specSlug = spec.slug;
  p.versionId = (
    await eventually(async () => {
      const state = (await admin().get(`/v1/orgs/${org.id}/openapi/${spec.slug}`)).body;
      if (state.processingState === 'failed' || state.lastProcessErrorCode) throw new Error(JSON.stringify(state));
      const res = await admin().get(`/v1/orgs/${org.id}/openapi/${spec.slug}/versions/latest`);
      return res.status === 200 && res.body;
    }, 60_000)
  ).id;
  p.fieldName = (await ok(admin().post(`/v1/orgs/${org.id}/custom-fields`, { name: unique('f'), type: 'text' }), 'field')).name;
  p.translationId = (await ok(admin().post(`/v1/orgs/${org.id}/translations`, { title: 'T', languages: ['fr'] }), 'translation')).id;
  p.samlProviderId = (await ok(admin().post(`/v1/orgs/${org.id}/saml`, SAML_BODY), 'saml')).id;
  p.integrationName = (await ok(admin().post(`/v1/integrations/${unique('integ')}`, INTEGRATION_BODY(org.id)), 'integration')).name;
  p.asset = 'icon.png';
  p.installationId = (
    await ok(admin().post(`/v1/integrations/${p.integrationName}/installations`, { organization: org.id }), 'installation')
  ).id;
  // An event delivered to the fixture's installation.
  p.eventId = unique('event');
  await insertIntegrationEvents(forkEm(t.orm), [
    {
      id: p.eventId,
      integrationName: p.integrationName,
      organizationId: org.id,
      installationId: p.installationId,
      type: 'installation_setup',
      payload: { eventId: p.eventId, type: 'installation_setup', installationId: p.installationId, status: 'active' },
    },
  ]);
  await recordDelivery(forkEm(t.orm), p.eventId, { status: 'success', responseStatus: 200, error: null, logs: [] });
  p.userId = await newUser();
  p.reviewId = (
    await ok(
      admin().post(`/v1/spaces/${p.spaceId}/change-requests/${p.changeRequestId}/reviews`, { status: 'changes-requested' }),
      'review',
    )
  ).id;
  p.teamId = await newTeam();
  await ok(admin().post(`/v1/spaces/${p.spaceId}/permissions`, { role: 'read', users: [p.userId], teams: [p.teamId] }), 'space grant');
  await ok(
    admin().post(`/v1/collections/${p.collectionId}/permissions`, { role: 'read', users: [p.userId], teams: [p.teamId] }),
    'collection grant',
  );
  p.siteId = await newSite();
  // The fixture's installation is enabled on the fixture's space and site.
  await ok(
    admin().patch(`/v1/integrations/${p.integrationName}/installations/${p.installationId}/spaces/${p.spaceId}`, {}),
    'space installation',
  );
  await ok(
    admin().post(`/v1/integrations/${p.integrationName}/installations/${p.installationId}/sites`, { siteId: p.siteId }),
    'site installation',
  );
  p.siteSectionId = await newSection(p.siteId);
  p.otherSectionId = await newSection(p.siteId);
  p.siteSectionGroupId = (await ok(admin().post(`${site(p)}/section-groups`, { title: 'G' }), 'group')).id;
  p.siteSpaceId = (await ok(admin().post(`${site(p)}/site-spaces`, { spaceId: await newSpace() }), 'site-space')).id;
  p.shareLinkId = (await ok(admin().post(`${site(p)}/share-links`, { name: 'L' }), 'share link')).id;
  p.siteRedirectId = (await ok(admin().post(`${site(p)}/redirects`, REDIRECT_BODY('/matrix-fixture')), 'redirect')).id;
  await ok(admin().post(`${site(p)}/permissions`, { role: 'read', users: [p.userId], teams: [p.teamId] }), 'site grant');
  p.hostname = await newHostnameSite();
  p.sha256 = '0'.repeat(64);
  p.inviteId = await newInviteLink();
  await ok(admin().patch(`/v1/orgs/${org.id}/link-invites/${p.inviteId}`, { disabled: true }), 'disabled invite link');
  p.lookupTokenId = (await ok(admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Matrix' }), 'lookup token')).id;
  lookupToken = (await ok(admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' }), 'lookup token')).token;
  p.auditEventId = (await ok(admin().get(`/v1/orgs/${org.id}/audit-events?limit=1`), 'audit events')).items[0].id;
  // A published site of the fixture space, and the token of a visitor of it.
  const published = (await ok(admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Published', spaces: [p.spaceId] }), 'site')).id;
  await ok(admin().post(`/v1/orgs/${org.id}/sites/${published}/publish`), 'publish');
  const url = `${t.config.sitesUrl}/${org.id}/${published}/`;
  visitorToken = (await ok(admin().post('/v1/urls/published', { url }), 'lookup')).apiToken;
});
afterAll(async () => {
  await t?.close();
});

function operations(): string[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) for (const method of Object.keys(ops)) out.push(`${method.toUpperCase()} ${path}`);
  return out;
}

/** What a caller should get from a row: 'allow', 403 or 404. */
function expected(op: string, row: Row, caller: Caller): 'allow' | 401 | 403 | 404 {
  if (caller === 'visitor' || caller === 'lookup') {
    // Routes outside /v1 take no bearer token at all: the token is not even looked at.
    const tokenless = row.rule === 'public' && !op.split(' ')[1].startsWith('/v1/');
    const admitted = tokenless || (caller === 'visitor' ? VISITOR_OPS : LOOKUP_OPS).has(op);
    return admitted ? (row.except?.[caller] ?? row.everyone ?? 'allow') : 403;
  }
  if (row.everyone) return row.everyone;
  const special = row.except?.[caller];
  if (special) return special;
  if (row.rule === 'public' || row.rule === 'user') return 'allow';
  if (caller === 'outsider' || caller === 'disabled' || caller === 'elsewhere') return 404;
  if (row.rule === 'member') return 'allow';
  const scope = row.scope ?? (op.includes('{organizationId}') || op.includes('{integrationName}') ? 'org' : 'content');
  if (caller === 'guest') return scope === 'org' ? 403 : 404;
  return RANK[caller] >= RANK[row.rule] ? 'allow' : 403;
}

function tokenOf(caller: Caller): string {
  if (caller === 'visitor') return visitorToken;
  if (caller === 'lookup') return lookupToken;
  if (caller === 'outsider') return other.members.admin.token;
  if (caller === 'elsewhere') return elsewhereToken;
  if (caller === 'disabled') return disabledToken;
  return org.members[caller].token;
}

function fill(op: string, params: Params): { method: string; url: string } {
  const [method, template] = op.split(' ');
  const isCr = template.includes('{changeRequestId}/comments');
  const url = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const key = isCr && (name === 'commentId' || name === 'commentReplyId') ? `cr${name[0].toUpperCase()}${name.slice(1)}` : name;
    const value = params[key];
    if (value === undefined) throw new Error(`${op}: no fixture for {${name}}`);
    return encodeURIComponent(value);
  });
  return { method, url };
}

function comments(): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const base of ['/v1/spaces/{spaceId}', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}']) {
    const cr = base.includes('change-requests');
    const comment = async (q: Params) => ({
      [cr ? 'crCommentId' : 'commentId']: await newComment(q.spaceId, cr ? q.changeRequestId : undefined),
    });
    const reply = async (q: Params) => ({
      [cr ? 'crCommentReplyId' : 'commentReplyId']: await newReply(
        q.spaceId,
        cr ? q.crCommentId : q.commentId,
        cr ? q.changeRequestId : undefined,
      ),
    });
    Object.assign(out, {
      [`GET ${base}/comments`]: { rule: 'read' },
      [`POST ${base}/comments`]: { rule: 'comment', body: () => ({ page: p.pageId, body: { markdown: 'Hi' } }) },
      [`GET ${base}/comments/{commentId}`]: { rule: 'read' },
      // Resolving or editing someone else's comment takes more than the comment role; the author is the admin.
      [`PUT ${base}/comments/{commentId}`]: { rule: 'review', body: () => ({ resolved: false }) },
      [`DELETE ${base}/comments/{commentId}`]: { rule: 'admin', fresh: comment },
      [`GET ${base}/comments/{commentId}/replies`]: { rule: 'read' },
      [`POST ${base}/comments/{commentId}/replies`]: { rule: 'comment', body: () => ({ body: { markdown: 'Me too' } }) },
      [`GET ${base}/comments/{commentId}/replies/{commentReplyId}`]: { rule: 'read' },
      [`PUT ${base}/comments/{commentId}/replies/{commentReplyId}`]: { rule: 'admin', body: () => ({ body: { markdown: 'Edited' } }) },
      [`DELETE ${base}/comments/{commentId}/replies/{commentReplyId}`]: { rule: 'admin', fresh: reply },
    } satisfies Record<string, Row>);
  }
  return out;
}

it('has one row for every operation of the API, and no row for an operation that does not exist', () => {
  const all = { ...rows, ...comments() };
  const ops = operations();
  expect(ops.filter((op) => !all[op])).toEqual([]);
  expect(Object.keys(all).filter((op) => !ops.includes(op))).toEqual([]);
});

it('allows and refuses every operation as its row says, for every kind of caller', async () => {
  const all = { ...rows, ...comments() };
  const failures: string[] = [];
  let denials = 0;
  // The callers of one operation run together; operations one after another (they share fixtures).
  for (const op of operations()) {
    const row = all[op];
    if (!row) continue;
    await Promise.all(
      CALLERS.map(async (caller) => {
        const want = expected(op, row, caller);
        if (want !== 'allow') denials++;
        let params: Params = p;
        // A consumed target is made afresh for each caller that may consume it; the refused use the shared one.
        if (row.fresh && want === 'allow') {
          try {
            params = { ...p, ...(await row.fresh(p)) };
          } catch (error) {
            failures.push(`${op} as ${caller}: ${(error as Error).message}`);
            return;
          }
        }
        // A visitor reads the revision its site publishes now (a token stops reading an earlier one
        // VISITOR_REVISION_GRACE after the site moved on, and the rows before this one write to the space).
        if (caller === 'visitor' && op.includes('{revisionId}') && want === 'allow') {
          params = { ...params, revisionId: (await ok(admin().get(`/v1/spaces/${params.spaceId}`), 'space')).revision };
        }
        const { method, url } = fill(op, params);
        const query = row.query ? `?${row.query(params)}` : '';
        const payload = row.body?.(params) ?? (['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined);
        const res = await t.app.inject({
          method: method as 'GET',
          url: `${url}${query}`,
          headers: { authorization: `Bearer ${tokenOf(caller)}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
          payload: payload === undefined ? undefined : JSON.stringify(payload),
        });
        const got = res.statusCode;
        const allowed = got < 400 || (got < 500 && ![401, 403, 404].includes(got));
        const pass = got < 500 && (want === 'allow' ? allowed : got === want);
        if (!pass) failures.push(`${op} as ${caller}: expected ${want}, got ${got} ${res.body.slice(0, 160)}`);
      }),
    );
  }
  console.log(`authorization matrix: ${operations().length} operations × ${CALLERS.length} callers, ${denials} refusals asserted`);
  expect(failures).toEqual([]);
  expect(denials).toBeGreaterThan(500);
}, 85_000);

it('refuses every /v1 operation without a token', async () => {
  const all = { ...rows, ...comments() };
  const failures: string[] = [];
  for (const op of operations()) {
    if (all[op]?.rule === 'public' || !op.split(' ')[1].startsWith('/v1/')) continue;
    const { method, url } = fill(op, p);
    const res = await t.app.inject({ method: method as 'GET', url });
    if (res.statusCode !== 401) failures.push(`${op}: ${res.statusCode}`);
  }
  expect(failures).toEqual([]);
});
