import { Type } from 'typebox';
import { INTEGRATION_NAME_PATTERN, INTEGRATION_VISIBILITIES } from '../../domain/integrations.ts';
import { OrganizationSchema } from '../orgs/schemas.ts';
import { SiteSchema } from '../sites/schemas.ts';
import { SpaceSchema } from '../spaces/schemas.ts';
import { Id, ListOf, Timestamp } from '../schemas.ts';

/** Enumerations and bounds follow GitBook's OpenAPI document; the spec's Limits table where it has one. */
const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const IntegrationName = Type.String({ minLength: 1, maxLength: 100, pattern: INTEGRATION_NAME_PATTERN });
export const Visibility = literals(INTEGRATION_VISIBILITIES);
export const Target = literals(['all', 'site', 'space', 'organization']);
export const Scope = literals([
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'page:feedback:read',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'conversations:ingest',
  'openapi:read',
  'openapi:write',
]);
export const Category = literals(['analytics', 'collaboration', 'content', 'marketing', 'visitor-auth', 'other']);

/** Base64 image content: at most 1 MiB once decoded (checked again on the decoded bytes). */
const Base64Image = Type.String({ maxLength: 1_400_000 });
const Url = Type.String({ maxLength: 2048 });

export const Block = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  title: Type.String({ minLength: 2, maxLength: 40 }),
  description: Type.Optional(Type.String({ maxLength: 150 })),
  icon: Type.Optional(Url),
  urlUnfurl: Type.Optional(Type.Array(Url, { maxItems: 50 })),
  markdown: Type.Optional(Type.Object({ codeblock: Type.String({ maxLength: 100 }), body: Type.String({ maxLength: 100 }) })),
});

export const ContentSource = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  title: Type.String({ minLength: 2, maxLength: 40 }),
  description: Type.Optional(Type.String({ maxLength: 150 })),
  icon: Type.Optional(Url),
  configuration: Type.Object({ componentId: Type.String({ minLength: 1, maxLength: 100 }) }),
});

export const ExternalLink = Type.Object({
  url: Type.String({ format: 'uri', maxLength: 2048 }),
  label: Type.String({ minLength: 1, maxLength: 100 }),
});

const PropertySchema = Type.Object({
  title: Type.Optional(Type.String({ minLength: 2, maxLength: 50 })),
  description: Type.Optional(Type.String({ maxLength: 100 })),
  type: literals(['string', 'number', 'boolean', 'button']),
  default: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  completion_url: Type.Optional(Url),
  enum: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { minItems: 1, maxItems: 100 })),
  callback_url: Type.Optional(Url),
  button_text: Type.Optional(Type.String({ maxLength: 100 })),
});

/** Either `properties` (+ `required`) or a ContentKit `componentId`; which one is checked in domain/integrations.ts. */
export const Configuration = Type.Object({
  properties: Type.Optional(Type.Record(Type.String(), PropertySchema, { maxProperties: 100 })),
  required: Type.Optional(Type.Array(Type.String(), { uniqueItems: true, maxItems: 100 })),
  componentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

export const Configurations = Type.Object({
  account: Type.Optional(Configuration),
  space: Type.Optional(Configuration),
  site: Type.Optional(Configuration),
});

const CspDirectives = Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { maxProperties: 40 });
export const ContentSecurityPolicy = Type.Union([Type.String({ maxLength: 8192 }), CspDirectives]);

export const PublishBody = Type.Object({
  runtime: Type.Optional(literals(['v1', 'v2'])),
  icon: Type.Optional(Base64Image),
  title: Type.String({ minLength: 2, maxLength: 30 }),
  description: Type.String({ maxLength: 100 }),
  summary: Type.Optional(Type.String({ maxLength: 2048 })),
  previewImages: Type.Optional(Type.Array(Base64Image, { maxItems: 3 })),
  visibility: Type.Optional(Visibility),
  target: Type.Optional(Target),
  scopes: Type.Optional(Type.Array(Scope, { uniqueItems: true })),
  categories: Type.Optional(Type.Array(Category, { uniqueItems: true })),
  blocks: Type.Optional(Type.Array(Block, { maxItems: 50 })),
  contentSources: Type.Optional(Type.Array(ContentSource, { maxItems: 50 })),
  externalLinks: Type.Optional(Type.Array(ExternalLink, { maxItems: 5 })),
  configurations: Type.Optional(Configurations),
  script: Type.String({ minLength: 1, maxLength: 5_000_000 }),
  organization: Type.String({ minLength: 1, maxLength: 64, description: 'ID or subdomain of the publishing organization' }),
  secrets: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { maxProperties: 20 })),
  contentSecurityPolicy: Type.Optional(ContentSecurityPolicy),
});

const bool = Type.Boolean();

export const IntegrationSchema = Type.Object({
  object: Type.Literal('integration'),
  name: Type.String(),
  version: Type.Number(),
  title: Type.String(),
  description: Type.String(),
  summary: Type.Optional(Type.String()),
  previewImages: Type.Array(Type.String()),
  target: Target,
  verified: bool,
  visibility: Visibility,
  scopes: Type.Array(Type.String()),
  categories: Type.Array(Type.String()),
  blocks: Type.Array(Block),
  contentSources: Type.Array(ContentSource),
  configurations: Configurations,
  externalLinks: Type.Array(ExternalLink),
  owner: OrganizationSchema,
  urls: Type.Object({
    location: Type.String(),
    icon: Type.Optional(Type.String()),
    app: Type.String(),
    assets: Type.String(),
    publicEndpoint: Type.String(),
    publicContentEndpoint: Type.String(),
  }),
  permissions: Type.Object({ admin: bool, install: bool }),
  contentSecurityPolicy: Type.Optional(ContentSecurityPolicy),
});
export const IntegrationList = ListOf(IntegrationSchema);

export const ListIntegrationsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  search: Type.Optional(Type.String({ maxLength: 512, description: 'Only integrations whose name or title contains this text' })),
  category: Type.Optional(Category),
  blockDomain: Type.Optional(
    Type.String({
      maxLength: 100,
      pattern: INTEGRATION_NAME_PATTERN,
      description: 'Only integrations with a block unfurling URLs of this domain',
    }),
  ),
  blocks: Type.Optional(Type.Boolean({ description: 'true: only integrations with blocks; false: only those without' })),
  contentSources: Type.Optional(Type.Boolean({ description: 'true: only integrations with content sources; false: only those without' })),
  owner: Type.Optional(Id),
  scope: Type.Optional(Scope),
  target: Type.Optional(Target),
});

export const InstallationSchema = Type.Object({
  id: Type.String(),
  status: literals(['active', 'pending', 'paused']),
  space_selection: literals(['all', 'selected']),
  site_selection: literals(['all', 'selected']),
  spaces: Type.Number(),
  configuration: Type.Record(Type.String(), Type.Unknown()),
  externalIds: Type.Array(Type.String()),
  target: Type.Object({ organization: Type.String() }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  urls: Type.Object({ location: Type.String(), app: Type.String(), publicEndpoint: Type.String(), publicContentEndpoint: Type.String() }),
});
export const InstallationList = ListOf(InstallationSchema);

export const NameParams = Type.Object({ integrationName: IntegrationName });

/** `setIntegrationDevelopmentMode`: where `gitbook dev` runs the integration. */
export const DevelopmentModeBody = Type.Object({
  tunnelUrl: Type.String({
    minLength: 1,
    maxLength: 256,
    description: "URL of the tunnel to dispatch the integration's events to (http or https), in place of its published script",
  }),
  all: Type.Optional(
    Type.Boolean({ default: false, description: "true: every organization's events go to the tunnel, not only the owner's" }),
  ),
});
export const InstallationParams = Type.Object({ integrationName: IntegrationName, installationId: Id });
/** An integration's icon or preview image: its bytes, as the image type it was uploaded with. */
export const AssetBytes = {
  description: 'The image, as the type it was uploaded with (SVG is served inert)',
  content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
} as const;

export const AssetParams = Type.Object({
  integrationName: IntegrationName,
  asset: literals(['icon', 'preview-0', 'preview-1', 'preview-2']),
});

export const ListInstallationsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  externalId: Type.Optional(Type.String({ maxLength: 256 })),
});

/** A configuration as sent: at most 100 properties, checked against the integration's declared properties (domain/integrations.ts). */
const InstallationConfiguration = Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 });
const ExternalIds = Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 5 });

/** GitBook's install body (`organization`), plus the account configuration and external IDs at once. */
export const InstallBody = Type.Object({
  organization: Id,
  configuration: Type.Optional(InstallationConfiguration),
  externalIds: Type.Optional(ExternalIds),
});

export const UpdateInstallationBody = Type.Object(
  {
    configuration: Type.Optional(InstallationConfiguration),
    externalIds: Type.Optional(ExternalIds),
    space_selection: Type.Optional(literals(['all', 'selected'])),
    site_selection: Type.Optional(literals(['all', 'selected'])),
  },
  { minProperties: 1 },
);

export const InstallationStatus = literals(['active', 'pending', 'paused']);

/** GitBook's `extended`: the space or site object in each item instead of its ID. */
export const ExtendedQuery = Type.Object({ extended: Type.Optional(Type.Boolean({ default: false })) });

const ContentInstallationBase = {
  integration: Type.String(),
  installation: Type.String(),
  status: InstallationStatus,
  configuration: Type.Record(Type.String(), Type.Unknown()),
  externalIds: Type.Array(Type.String()),
  urls: Type.Object({ location: Type.String(), publicEndpoint: Type.String(), publicContentEndpoint: Type.String() }),
};
export const SpaceInstallationSchema = Type.Object({ ...ContentInstallationBase, space: Type.Union([Type.String(), SpaceSchema]) });
export const SiteInstallationSchema = Type.Object({ ...ContentInstallationBase, site: Type.Union([Type.String(), SiteSchema]) });
export const SpaceInstallationList = ListOf(SpaceInstallationSchema);
export const SiteInstallationList = ListOf(SiteInstallationSchema);

export const SpaceInstallationParams = Type.Object({ integrationName: IntegrationName, installationId: Id, spaceId: Id });
export const SiteInstallationParams = Type.Object({ integrationName: IntegrationName, installationId: Id, siteId: Id });

/** GitBook's UpdateIntegrationSpaceInstallation / UpdateIntegrationSiteInstallation. */
export const UpdateContentInstallationBody = Type.Object({
  configuration: Type.Optional(InstallationConfiguration),
  externalIds: Type.Optional(ExternalIds),
});

export const InstallOnSiteBody = Type.Object({ siteId: Id });

export const ListContentInstallationsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  extended: Type.Optional(Type.Boolean({ default: false })),
});
export const ListIntegrationContentInstallationsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  externalId: Type.Optional(Type.String({ maxLength: 256 })),
  extended: Type.Optional(Type.Boolean({ default: false })),
});

/** GitBook's APITemporaryToken. */
export const InstallationToken = Type.Object({ token: Type.String() });

// --- Organization views ---

export const OrganizationParams = Type.Object({ organizationId: Id });
export const OrganizationIntegrationParams = Type.Object({ organizationId: Id, integrationName: IntegrationName });
export const OrganizationSiteParams = Type.Object({ organizationId: Id, siteId: Id });

export const IntegrationStatusAnswer = Type.Object({ status: InstallationStatus });

const SearchQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  search: Type.Optional(Type.String({ maxLength: 512, description: 'Only integrations whose name or title contains this text' })),
});
export const OrganizationInstallationsQuery = SearchQuery;
export const SiteIntegrationsQuery = SearchQuery;
export const OrganizationInstallationList = ListOf(Type.Object({ installation: InstallationSchema, integration: IntegrationSchema }));

export const InstalledIntegrationsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  target: Type.Optional(Type.Union([Type.Literal('organization'), Type.Literal('space'), Type.Literal('site')])),
  site: Type.Optional(Id),
  space: Type.Optional(Id),
});
export const InstalledIntegrationList = ListOf(
  Type.Object({
    status: InstallationStatus,
    integration: IntegrationSchema,
    target: Type.Union([
      Type.Object({ type: Type.Literal('organization'), organizationId: Type.String() }),
      Type.Object({ type: Type.Literal('site'), siteId: Type.String() }),
      Type.Object({ type: Type.Literal('space'), spaceId: Type.String() }),
    ]),
  }),
);

/** ContentKit's rendering context (GitBook's `ContentKitContext`): where the component is shown. */
export const RenderContext = Type.Object(
  {
    type: literals(['document', 'configuration_account', 'configuration_space', 'configuration_site', 'configuration_contentsource']),
    theme: Type.Optional(literals(['dark', 'light'])),
    spaceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    siteId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    editable: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

/** renderIntegrationUIWithPost's body (GitBook's `RenderIntegrationUI`). */
export const RenderBody = Type.Object({
  componentId: Type.String({ minLength: 1, maxLength: 256 }),
  props: Type.Record(Type.String(), Type.Unknown()),
  state: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  context: RenderContext,
  action: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** renderIntegrationUIWithGet's query: the same request, JSON compressed with lz-string (`compressToEncodedURIComponent`). */
export const RenderQuery = Type.Object({ request: Type.String({ minLength: 1, maxLength: 8192 }) });

/** A component's ContentKit output (GitBook's `ContentKitRenderOutput`), as the integration answered it. */
export const RenderOutput = Type.Object({ type: Type.String() }, { additionalProperties: true });

/** queueIntegrationTask's body: the integration's payload, and the seconds to wait (at most a day). */
export const QueueTaskBody = Type.Object({
  task: Type.Record(Type.String(), Type.Unknown(), { description: 'Payload for the integration task' }),
  schedule: Type.Optional(Type.Number({ minimum: 0, maximum: 86400, description: 'Seconds to wait before running the task (default 0)' })),
});

/** A site script's URL (`urls.siteScript`). */
export const SiteScriptParams = Type.Object({ integrationName: IntegrationName, installationId: Id, siteId: Id });

/** GitBook's `SiteIntegrationScript`. */
export const SiteIntegrationScript = Type.Object({
  script: Type.String(),
  contentSecurityPolicy: Type.Optional(Type.String()),
  cookies: Type.Boolean(),
});

/** An integration's public endpoint, or an installation's (with `installationId`): the rest of the path is the script's. */
/** fetch_visitor_authentication's entry: the page the visitor asked for, or signing out. */
export const VisitorAuthQuery = Type.Object({
  location: Type.Optional(Type.String({ maxLength: 2048 })),
  action: Type.Optional(Type.Literal('logout')),
});

export const PublicEndpointParams = Type.Object({
  integrationName: IntegrationName,
  installationId: Type.Optional(Id),
  siteId: Type.Optional(Id),
  '*': Type.Optional(Type.String()),
});
