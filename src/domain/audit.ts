/**
 * The audit log's catalog: what each change the service makes is called. Every mutating route
 * (method and route template, as the router knows it) has one stable action id and label, or is
 * listed in NOT_CHANGES with the reason it changes nothing an auditor asks about; every job kind
 * that writes has one too. `listOrganizationAuditEventActions` answers the catalog, and the test of
 * the audit log fails when a route of the app is in neither table.
 */

/** GitBook's actor kinds (AuditEventActor.type). */
export type AuditActorType = 'user' | 'integration' | 'installation' | 'system' | 'support';

/** GitBook's entry points (AuditEvent.source). */
export type AuditSource = 'ui' | 'api' | 'integration' | 'webhook' | 'workflow' | 'script' | 'support';

/**
 * How a route's writes are made atomic with their event:
 * - `request`: the whole handler runs in one transaction (src/db/orm.ts `transaction`), which
 *   records the event; the answer is sent once it committed;
 * - `service`: the service commits its own transactions (it starts jobs or signals them once its
 *   writes are committed); the first of them that writes records the event. A request of such a
 *   route that succeeds without writing (it handed its work to a job) records the event on its own,
 *   in a transaction of its own: the job's events name it as their cause.
 */
export type AuditScope = 'request' | 'service';

export interface RouteAudit {
  action: string;
  label: string;
  /** The route parameter naming the target; default: the last parameter of the route. */
  target?: string;
  scope: AuditScope;
}

/** The kind of object a route parameter names (AuditEventTarget.type). */
export const TARGET_TYPES: Record<string, string> = {
  organizationId: 'organization',
  collectionId: 'collection',
  spaceId: 'space',
  changeRequestId: 'change-request',
  commentId: 'comment',
  commentReplyId: 'comment-reply',
  userId: 'user',
  teamId: 'team',
  inviteId: 'invite',
  integrationName: 'integration',
  installationId: 'installation',
  specSlug: 'openapi-spec',
  fieldName: 'custom-field',
  translationId: 'translation',
  samlProviderId: 'saml-provider',
  siteId: 'site',
  siteSectionId: 'site-section',
  siteSectionGroupId: 'site-section-group',
  siteSpaceId: 'site-space',
  shareLinkId: 'site-share-link',
  siteRedirectId: 'site-redirect',
  lookupTokenId: 'site-lookup-token',
  hostname: 'custom-hostname',
};

const CR = '/v1/spaces/:spaceId/change-requests/:changeRequestId';
const SITE = '/v1/orgs/:organizationId/sites/:siteId';

type Row = [route: string, action: string, label: string, options?: { target?: string; scope?: AuditScope }];
const own = { scope: 'service' as const };

function commentRows(base: string, where: string): Row[] {
  const cr = base.includes('change-requests') ? 'change_request_' : '';
  return [
    [`POST ${base}/comments`, `${cr}comment.created`, `Comment created on a ${where}`],
    [`PUT ${base}/comments/:commentId`, `${cr}comment.updated`, `Comment on a ${where} updated`],
    [`DELETE ${base}/comments/:commentId`, `${cr}comment.deleted`, `Comment on a ${where} deleted`],
    [`POST ${base}/comments/:commentId/replies`, `${cr}comment.replied`, `Reply posted to a comment on a ${where}`],
    [`PUT ${base}/comments/:commentId/replies/:commentReplyId`, `${cr}comment_reply.updated`, `Reply to a comment on a ${where} updated`],
    [
      `DELETE ${base}/comments/:commentId/replies/:commentReplyId`,
      `${cr}comment_reply.deleted`,
      `Reply to a comment on a ${where} deleted`,
    ],
  ];
}

function permissionRows(base: string, kind: 'space' | 'collection'): Row[] {
  const id = `${kind}Id`;
  return [
    [`POST ${base}/permissions`, `${kind}.permissions_granted`, `Permissions granted on a ${kind}`, { target: id }],
    [`PATCH ${base}/permissions/users/:userId`, `${kind}.user_permission_updated`, `User permission on a ${kind} updated`, { target: id }],
    [`DELETE ${base}/permissions/users/:userId`, `${kind}.user_permission_removed`, `User permission on a ${kind} removed`, { target: id }],
    [`PATCH ${base}/permissions/teams/:teamId`, `${kind}.team_permission_updated`, `Team permission on a ${kind} updated`, { target: id }],
    [`DELETE ${base}/permissions/teams/:teamId`, `${kind}.team_permission_removed`, `Team permission on a ${kind} removed`, { target: id }],
  ];
}

const ROWS: Row[] = [
  ['PATCH /v1/orgs/:organizationId', 'organization.updated', 'Organization updated'],

  ['POST /v1/orgs/:organizationId/collections', 'collection.created', 'Collection created'],
  ['PATCH /v1/collections/:collectionId', 'collection.updated', 'Collection updated'],
  ['DELETE /v1/collections/:collectionId', 'collection.deleted', 'Collection deleted', own],
  ['POST /v1/collections/:collectionId/move', 'collection.moved', 'Collection moved'],
  ['POST /v1/collections/:collectionId/transfer', 'collection.transferred', 'Collection transferred'],
  ...permissionRows('/v1/collections/:collectionId', 'collection'),

  ['POST /v1/orgs/:organizationId/spaces', 'space.created', 'Space created', own],
  ['PATCH /v1/spaces/:spaceId', 'space.updated', 'Space updated', own],
  ['DELETE /v1/spaces/:spaceId', 'space.deleted', 'Space deleted', own],
  ['POST /v1/spaces/:spaceId/restore', 'space.restored', 'Space restored', own],
  ['POST /v1/spaces/:spaceId/duplicate', 'space.duplicated', 'Space duplicated', own],
  ['POST /v1/spaces/:spaceId/move', 'space.moved', 'Space moved', own],
  ['POST /v1/spaces/:spaceId/transfer', 'space.transferred', 'Space transferred', own],
  ['PATCH /v1/spaces/:spaceId/custom-fields', 'space.custom_fields_updated', 'Custom field values of a space updated'],
  ...permissionRows('/v1/spaces/:spaceId', 'space'),

  ['POST /v1/spaces/:spaceId/change-requests', 'change_request.created', 'Change request created', own],
  [`PATCH ${CR}`, 'change_request.updated', 'Change request updated', own],
  [`POST ${CR}/content`, 'change_request.content_edited', 'Change request content edited', own],
  [`POST ${CR}/merge`, 'change_request.merge_requested', 'Change request merge requested', own],
  [`POST ${CR}/update`, 'change_request.update_requested', 'Update of a change request with its space requested', own],
  [`POST ${CR}/reviews`, 'change_request.reviewed', 'Change request reviewed', { target: 'changeRequestId', ...own }],
  [`POST ${CR}/requested-reviewers`, 'change_request.reviewers_requested', 'Reviewers requested on a change request', own],
  [
    `DELETE ${CR}/requested-reviewers/:userId`,
    'change_request.reviewer_removed',
    'Requested reviewer removed from a change request',
    { target: 'changeRequestId', ...own },
  ],
  ...commentRows('/v1/spaces/:spaceId', 'space'),
  ...commentRows(CR, 'change request'),

  ['POST /v1/spaces/:spaceId/content/import', 'space.content_imported', 'Content imported into a space', own],
  [`POST ${CR}/content/import`, 'change_request.content_imported', 'Content imported into a change request', own],
  ['POST /v1/spaces/:spaceId/git/import', 'git_sync.import_requested', 'Git Sync import requested', own],
  ['POST /v1/spaces/:spaceId/git/export', 'git_sync.export_requested', 'Git Sync export requested', own],
  ['PUT /v1/spaces/:spaceId/git/webhook', 'git_sync.webhook_configured', 'Git Sync push webhook configured', own],
  ['POST /hooks/git/:spaceId', 'git_sync.push_received', 'Git Sync push received', own],

  ['POST /v1/orgs/:organizationId/openapi', 'openapi_spec.created', 'OpenAPI specification created', own],
  ['PUT /v1/orgs/:organizationId/openapi/:specSlug', 'openapi_spec.updated', 'OpenAPI specification updated', own],
  ['DELETE /v1/orgs/:organizationId/openapi/:specSlug', 'openapi_spec.deleted', 'OpenAPI specification deleted', own],

  ['POST /v1/orgs/:organizationId/custom-fields', 'custom_field.created', 'Custom field created'],
  ['PATCH /v1/orgs/:organizationId/custom-fields/:fieldName', 'custom_field.updated', 'Custom field updated'],
  ['DELETE /v1/orgs/:organizationId/custom-fields/:fieldName', 'custom_field.deleted', 'Custom field deleted'],

  ['POST /v1/orgs/:organizationId/translations', 'translation.created', 'Translation created'],
  ['PUT /v1/orgs/:organizationId/translations/:translationId', 'translation.updated', 'Translation updated'],
  ['DELETE /v1/orgs/:organizationId/translations/:translationId', 'translation.deleted', 'Translation deleted'],

  ['POST /v1/orgs/:organizationId/saml', 'saml_provider.created', 'SAML provider created'],
  ['PATCH /v1/orgs/:organizationId/saml/:samlProviderId', 'saml_provider.updated', 'SAML provider updated'],
  ['DELETE /v1/orgs/:organizationId/saml/:samlProviderId', 'saml_provider.deleted', 'SAML provider deleted'],
  ['POST /sso/saml/:samlProviderId/acs', 'member.signed_in_with_sso', 'Signed in with SAML SSO', own],

  ['POST /v1/integrations/:integrationName', 'integration.published', 'Integration published'],
  ['DELETE /v1/integrations/:integrationName', 'integration.deleted', 'Integration deleted'],
  ['PUT /v1/integrations/:integrationName/dev', 'integration.development_mode_enabled', 'Integration development mode enabled'],
  ['DELETE /v1/integrations/:integrationName/dev', 'integration.development_mode_disabled', 'Integration development mode disabled'],
  ['POST /v1/integrations/:integrationName/installations', 'integration.installed', 'Integration installed'],
  [
    'PATCH /v1/integrations/:integrationName/installations/:installationId',
    'integration_installation.updated',
    'Integration installation updated',
  ],
  ['DELETE /v1/integrations/:integrationName/installations/:installationId', 'integration.uninstalled', 'Integration uninstalled'],
  [
    'POST /v1/integrations/:integrationName/installations/:installationId/tokens',
    'integration_installation.token_created',
    'Token acting as an integration installation created',
  ],
  [
    'PATCH /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId',
    'integration_installation.space_configured',
    'Integration configured on a space',
  ],
  [
    'DELETE /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId',
    'integration.uninstalled_from_space',
    'Integration uninstalled from a space',
  ],
  [
    'POST /v1/integrations/:integrationName/installations/:installationId/sites',
    'integration.installed_on_site',
    'Integration installed on a site',
  ],
  [
    'PATCH /v1/integrations/:integrationName/installations/:installationId/sites/:siteId',
    'integration_installation.site_configured',
    'Integration configured on a site',
  ],
  [
    'DELETE /v1/integrations/:integrationName/installations/:installationId/sites/:siteId',
    'integration.uninstalled_from_site',
    'Integration uninstalled from a site',
  ],

  ['PATCH /v1/orgs/:organizationId/members/:userId', 'member.updated', 'Member updated'],
  ['DELETE /v1/orgs/:organizationId/members/:userId', 'member.removed', 'Member removed'],
  ['POST /v1/orgs/:organizationId/members/:userId/sso', 'member.sso_enforced', 'Member made to sign in with SSO'],
  ['POST /v1/orgs/:organizationId/invites', 'invite.sent', 'Invitations sent by email'],
  ['POST /v1/orgs/:organizationId/invites/:inviteId', 'invite.link_joined', 'Organization joined with an invite link'],
  ['POST /v1/orgs/:organizationId/link-invites', 'invite.link_created', 'Invite link created'],
  ['PATCH /v1/orgs/:organizationId/link-invites/:inviteId', 'invite.link_updated', 'Invite link updated'],
  ['DELETE /v1/orgs/:organizationId/link-invites/:inviteId', 'invite.link_deleted', 'Invite link deleted'],
  ['POST /v1/user/invites/:inviteId', 'invite.accepted', 'Invitation accepted'],
  ['DELETE /v1/user/invites/:inviteId', 'invite.declined', 'Invitation declined'],

  ['PUT /v1/orgs/:organizationId/teams', 'team.created', 'Team created'],
  ['PATCH /v1/orgs/:organizationId/teams/:teamId', 'team.updated', 'Team updated'],
  ['DELETE /v1/orgs/:organizationId/teams/:teamId', 'team.deleted', 'Team deleted'],
  ['PUT /v1/orgs/:organizationId/teams/:teamId/members', 'team.members_updated', 'Team members updated'],
  ['PUT /v1/orgs/:organizationId/teams/:teamId/members/:userId', 'team.member_set', 'Team member added or changed', { target: 'teamId' }],
  ['DELETE /v1/orgs/:organizationId/teams/:teamId/members/:userId', 'team.member_removed', 'Team member removed', { target: 'teamId' }],

  ['POST /v1/orgs/:organizationId/sites', 'site.created', 'Site created', own],
  [`PATCH ${SITE}`, 'site.updated', 'Site updated'],
  [`DELETE ${SITE}`, 'site.deleted', 'Site deleted'],
  [`POST ${SITE}/publish`, 'site.published', 'Site published'],
  [`POST ${SITE}/unpublish`, 'site.unpublished', 'Site unpublished'],
  [`PUT ${SITE}/adaptive-schema`, 'site.adaptive_schema_updated', 'Site adaptive content schema updated'],
  [`PATCH ${SITE}/publishing/auth`, 'site.visitor_auth_updated', 'Site visitor authentication updated'],
  [`POST ${SITE}/publishing/auth/regenerate`, 'site.visitor_auth_key_regenerated', 'Site visitor authentication key regenerated'],
  [`PUT ${SITE}/customization`, 'site.customization_replaced', 'Site customization replaced'],
  [`PATCH ${SITE}/customization`, 'site.customization_updated', 'Site customization updated'],
  [`POST ${SITE}/sections`, 'site_section.created', 'Site section created', own],
  [`PATCH ${SITE}/sections/:siteSectionId`, 'site_section.updated', 'Site section updated'],
  [`DELETE ${SITE}/sections/:siteSectionId`, 'site_section.deleted', 'Site section deleted'],
  [`POST ${SITE}/sections/:siteSectionId/move`, 'site_section.moved', 'Site section moved'],
  [`POST ${SITE}/section-groups`, 'site_section_group.created', 'Site section group created'],
  [`PATCH ${SITE}/section-groups/:siteSectionGroupId`, 'site_section_group.updated', 'Site section group updated'],
  [`DELETE ${SITE}/section-groups/:siteSectionGroupId`, 'site_section_group.deleted', 'Site section group deleted'],
  [`POST ${SITE}/section-groups/:siteSectionGroupId/move`, 'site_section_group.moved', 'Site section group moved'],
  [`POST ${SITE}/section-groups/:siteSectionGroupId/sections`, 'site_section_group.section_added', 'Section added to a section group'],
  [
    `DELETE ${SITE}/section-groups/:siteSectionGroupId/sections/:siteSectionId`,
    'site_section_group.section_removed',
    'Section removed from a section group',
    { target: 'siteSectionGroupId' },
  ],
  [`POST ${SITE}/site-spaces`, 'site_space.created', 'Space added to a site', own],
  [`PATCH ${SITE}/site-spaces/:siteSpaceId`, 'site_space.updated', 'Site space updated'],
  [`DELETE ${SITE}/site-spaces/:siteSpaceId`, 'site_space.deleted', 'Space removed from a site'],
  [`POST ${SITE}/site-spaces/:siteSpaceId/move`, 'site_space.moved', 'Site space moved'],
  [`PATCH ${SITE}/structure/sort`, 'site.structure_sorted', 'Site structure item moved', { target: 'siteId' }],
  [`POST ${SITE}/share-links`, 'site_share_link.created', 'Site share link created'],
  [`PATCH ${SITE}/share-links/:shareLinkId`, 'site_share_link.updated', 'Site share link updated'],
  [`DELETE ${SITE}/share-links/:shareLinkId`, 'site_share_link.deleted', 'Site share link deleted'],
  [`POST ${SITE}/redirects`, 'site_redirect.created', 'Site redirect created'],
  [`PUT ${SITE}/redirects`, 'site_redirect.replaced', 'Site redirects replaced', { target: 'siteId' }],
  [`PATCH ${SITE}/redirects/:siteRedirectId`, 'site_redirect.updated', 'Site redirect updated'],
  [`DELETE ${SITE}/redirects/:siteRedirectId`, 'site_redirect.deleted', 'Site redirect deleted'],
  ['POST /v1/orgs/:organizationId/site-lookup-tokens', 'site_lookup_token.created', 'Site lookup token created'],
  ['DELETE /v1/orgs/:organizationId/site-lookup-tokens/:lookupTokenId', 'site_lookup_token.deleted', 'Site lookup token deleted'],
  [`POST ${SITE}/permissions`, 'site.permissions_granted', 'Permissions granted on a site', { target: 'siteId' }],
  [`PATCH ${SITE}/permissions/users/:userId`, 'site.user_permission_updated', 'User permission on a site updated', { target: 'siteId' }],
  [`DELETE ${SITE}/permissions/users/:userId`, 'site.user_permission_removed', 'User permission on a site removed', { target: 'siteId' }],
  [`PATCH ${SITE}/permissions/teams/:teamId`, 'site.team_permission_updated', 'Team permission on a site updated', { target: 'siteId' }],
  [`DELETE ${SITE}/permissions/teams/:teamId`, 'site.team_permission_removed', 'Team permission on a site removed', { target: 'siteId' }],
  // The DNS check runs outside any transaction; its result is stored in one of its own.
  ['PATCH /v1/custom-hostnames/:hostname', 'custom_hostname.dns_revalidated', 'Custom hostname DNS checked again', own],
  ['DELETE /v1/custom-hostnames/:hostname', 'custom_hostname.removed', 'Custom hostname removed from its site'],
];

/**
 * Mutating routes that change nothing an auditor asks about, each with the reason. Their requests
 * record no event (whatever they write is bookkeeping: a token's last use, a member's last visit).
 */
export const NOT_CHANGES: Record<string, string> = {
  'POST /v1/urls/published': 'a lookup of a published URL, sent as POST for its body',
  [`POST ${SITE}/search`]: 'a search of a published site, sent as POST for its body',
  [`POST ${SITE}/insights/events`]: "reader telemetry: a published site's page views, searches and clicks, not a change of the site",
  [`POST ${SITE}/insights/events/aggregate`]: 'a query of the insights of a site, sent as POST for its body',
  [`POST ${SITE}/agents/feedback`]: "reader telemetry: an AI agent's feedback on what the site exposes, not a change of the site",
  [`POST ${SITE}/agent-feedback`]: "reader telemetry: an AI agent's feedback on the site's content (older form), not a change",
  'POST /v1/orgs/:organizationId/ping': 'presence: records when the caller was last seen, nothing else',
  'POST /v1/integrations/:integrationName/render': "a rendering of an integration's component, sent as POST for its body",
  'POST /v1/integrations/:integrationName/tasks': "work queued for an integration's own script (a job), not a change of the service's data",
};

/** Actions recorded by jobs (source `workflow`), by job kind. */
export const JOB_ACTIONS = {
  changeRequestMerge: { action: 'change_request.merged', label: 'Change request merged into its space' },
  changeRequestUpdate: { action: 'change_request.updated_from_space', label: 'Change request updated with its space' },
  gitSyncImport: { action: 'git_sync.imported', label: 'Git Sync import written' },
  contentImport: { action: 'content_import.applied', label: 'Imported content written' },
  spacePurge: { action: 'space.purged', label: 'Deleted space purged for good' },
  openapiVersion: { action: 'openapi_spec.version_recorded', label: 'OpenAPI spec version fetched and recorded' },
} as const;
export type JobKind = keyof typeof JOB_ACTIONS;

/** A route's key in the catalog: its method and template as the router knows them (`PATCH /v1/spaces/:spaceId`). */
export const routeKey = (method: string, url: string) => `${method.toUpperCase()} ${url}`;

/** The methods whose routes change something, unless NOT_CHANGES says otherwise. */
export const MUTATING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const ROUTES = new Map<string, RouteAudit>(
  ROWS.map(([route, action, label, options]) => [route, { action, label, scope: options?.scope ?? 'request', target: options?.target }]),
);

/** The catalog's entry of a route; undefined for a route that is not a change (GET, NOT_CHANGES) or is not catalogued. */
export function routeAudit(method: string, url: string): RouteAudit | undefined {
  return ROUTES.get(routeKey(method, url));
}

/** Every route the catalog names (for the test that holds the catalog to the app's routes). */
export const catalogedRoutes = (): string[] => [...ROUTES.keys()];

/** Every action, id and label, in a stable order (routes first, then jobs): one per id. */
export function auditActions(): { id: string; label: string }[] {
  const seen = new Map<string, string>();
  for (const entry of ROUTES.values()) if (!seen.has(entry.action)) seen.set(entry.action, entry.label);
  for (const job of Object.values(JOB_ACTIONS)) if (!seen.has(job.action)) seen.set(job.action, job.label);
  return [...seen].map(([id, label]) => ({ id, label }));
}

/** The parameters of a route template, in order (`/v1/spaces/:spaceId/comments/:commentId` → spaceId, commentId). */
export const routeParams = (url: string): string[] => [...url.matchAll(/:(\w+)/g)].map((m) => m[1]);

/**
 * What a request of a route acts on, from its route parameters: the parameter the catalog names,
 * else the last one. A creation names its parent until the service names what it created.
 */
export function routeTarget(url: string, entry: RouteAudit, params: Record<string, string | undefined>): { type: string; id: string } {
  const names = routeParams(url);
  const name = entry.target ?? names.at(-1);
  const id = name ? params[name] : undefined;
  if (!name || id === undefined) return { type: 'organization', id: params.organizationId ?? '' };
  return { type: TARGET_TYPES[name] ?? name.replace(/Id$/, ''), id };
}

/** Body fields whose names an event may keep: names only, never values. */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * The payload an event keeps for a request: the names of the fields its body set (never their
 * values: a body may carry a password, a token, a certificate's key), at most 32 of them, and the
 * route's other parameters (ids). The allowlist is the same for every action: ids and names.
 */
export function requestPayload(
  url: string,
  entry: RouteAudit,
  params: Record<string, string | undefined>,
  body: unknown,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  const targetName = entry.target ?? routeParams(url).at(-1);
  for (const name of routeParams(url)) {
    if (name !== targetName && params[name] !== undefined) payload[name] = params[name];
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const fields = Object.keys(body)
      .filter((key) => FIELD_NAME.test(key))
      .slice(0, 32);
    if (fields.length > 0) payload.fields = fields.sort();
  }
  return payload;
}

/** The label a created object answers with: its title, name or label, cut to 200 characters. */
export function answerLabel(answer: unknown): string | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const record = answer as Record<string, unknown>;
  for (const key of ['title', 'name', 'label', 'displayName', 'slug', 'subject']) {
    const value = record[key];
    if (typeof value === 'string' && value.length > 0) return value.slice(0, 200);
  }
  return undefined;
}
