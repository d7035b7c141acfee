import { Type } from 'typebox';
import { Id, ListOf, ListQuery, Timestamp } from '../schemas.ts';
import { SpaceSchema } from '../spaces/schemas.ts';

/** Sites and what hangs off them: the shapes of GitBook's published API (Site, SiteSection, SiteSpace, …). */

const bool = Type.Boolean();
const lit = (values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));

/**
 * A string within bounds, or null. One `type: [string, null]` schema rather than a union, so the
 * API's type coercion never reads an empty string as null: "" is a string, held to its bounds.
 */
/**
 * `draft` on a site's structure (GitBook's draft mode): true keeps the item out of what readers see
 * until it is made live (false). Draft content is listed to members and shown by previews.
 */
export const Draft = (description: string) => Type.Optional(Type.Boolean({ description }));

export function nullable(schema: { minLength?: number; maxLength?: number; pattern?: string; format?: string }) {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], ...schema });
}

export const SiteType = lit(['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium']);
export const SiteVisibility = lit(['public', 'unlisted', 'share-link', 'visitor-auth']);
export const SiteTitle = Type.String({ minLength: 2, maxLength: 128 });
const HOSTNAME_PATTERN = '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$';
export const SiteBasename = Type.String({ minLength: 1, maxLength: 100 });
const PROXY_PATTERN = '^([\\w-]+\\.)*[\\w-]+\\.[a-zA-Z]{2,}(\\/[\\w-]+)+$';
export const SectionTitle = Type.String({ minLength: 2, maxLength: 128 });
export const SectionPath = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^/?#\\s]+$' });
export const NullableCondition = nullable({ minLength: 1, maxLength: 1024 });
export const Icon = Type.String({ maxLength: 50 });
export const SectionDescription = Type.String({ maxLength: 256 });
export const GroupTitle = Type.String({ minLength: 1, maxLength: 100 });
export const ShareLinkName = Type.String({ maxLength: 50 });

export const SiteSchema = Type.Object({
  object: Type.Literal('site'),
  id: Type.String(),
  type: SiteType,
  appliedType: SiteType,
  title: Type.String(),
  hostname: Type.Optional(Type.String()),
  basename: Type.Optional(Type.String()),
  proxy: Type.Optional(Type.Object({ origin: Type.String(), target: Type.String() })),
  visibility: SiteVisibility,
  defaultLevel: Type.Union([Type.String(), Type.Null()]),
  permissions: Type.Object({
    view: bool,
    access: bool,
    edit: bool,
    create: bool,
    admin: bool,
    installIntegration: bool,
    viewAdaptiveSchema: bool,
    editAdaptiveSchema: bool,
  }),
  published: bool,
  siteSpaces: Type.Integer(),
  createdAt: Timestamp,
  adaptiveContent: Type.Object({ enabled: bool }),
  features: Type.Array(Type.Object({ id: Type.String(), plan: Type.String(), frozen: bool })),
  urls: Type.Object({ location: Type.String(), app: Type.String(), preview: Type.String(), published: Type.Optional(Type.String()) }),
});
export const SiteList = ListOf(SiteSchema);

export const SiteSpaceSchema = Type.Object({
  object: Type.Literal('site-space'),
  id: Type.String(),
  path: Type.String(),
  section: Type.Optional(Type.String()),
  space: SpaceSchema,
  title: Type.String(),
  default: bool,
  draft: bool,
  hidden: bool,
  condition: Type.Optional(Type.String()),
  hasAdvancedCustomizationFeature: Type.Optional(bool),
  urls: Type.Object({ published: Type.Optional(Type.String()) }),
});
export const SiteSpaceList = ListOf(SiteSpaceSchema);

export const SiteSectionSchema = Type.Object({
  object: Type.Literal('site-section'),
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  default: bool,
  draft: bool,
  path: Type.String(),
  condition: Type.Optional(Type.String()),
  sectionGroup: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  siteSpaces: Type.Array(SiteSpaceSchema),
  urls: Type.Object({ published: Type.Optional(Type.String()) }),
});
export const SiteSectionList = ListOf(SiteSectionSchema);

export const SiteSectionGroupSchema = Type.Object({
  object: Type.Literal('site-section-group'),
  id: Type.String(),
  title: Type.String(),
  icon: Type.Optional(Type.String()),
  draft: bool,
  sections: Type.Array(SiteSectionSchema),
  children: Type.Array(SiteSectionSchema),
});
export const SiteSectionGroupList = ListOf(SiteSectionGroupSchema);

export const ShareLinkSchema = Type.Object({
  object: Type.Literal('share-link'),
  id: Type.String(),
  createdAt: Timestamp,
  name: Type.String(),
  active: bool,
  /** Only in the answer to the creation: the secret key, never shown again. */
  key: Type.Optional(Type.String()),
  urls: Type.Object({ published: Type.Optional(Type.String()) }),
});
export const ShareLinkList = ListOf(ShareLinkSchema);

export const AdaptiveSchemaSchema = Type.Object({
  object: Type.Literal('site-adaptive-schema'),
  jsonSchema: Type.Record(Type.String(), Type.Unknown()),
  updatedAt: Timestamp,
});

export const PublishingAuthSchema = Type.Object({
  object: Type.Literal('publishing-auth'),
  backend: Type.Literal('custom'),
  privateKey: Type.String(),
  fallbackURL: Type.Optional(Type.String()),
  logoutURL: Type.Optional(Type.String()),
});

export const CustomizationSchema = Type.Record(Type.String(), Type.Unknown());

/** A GitBook customization input: the parts with bounds are checked, the rest is kept as given. */
const Color = Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}){1,2}$' });
const Themed = Type.Object({ light: Color, dark: Color });
export const CustomizationInput = Type.Object(
  {
    title: Type.Optional(Type.Union([SiteTitle, Type.Null()])),
    styling: Type.Optional(
      Type.Object(
        {
          theme: Type.Optional(lit(['clean', 'muted', 'bold', 'gradient'])),
          primaryColor: Type.Optional(Themed),
          tint: Type.Optional(Type.Union([Type.Object({ color: Themed }), Type.Null()])),
          infoColor: Type.Optional(Themed),
          successColor: Type.Optional(Themed),
          warningColor: Type.Optional(Themed),
          dangerColor: Type.Optional(Themed),
          corners: Type.Optional(lit(['straight', 'rounded', 'circular'])),
          depth: Type.Optional(lit(['subtle', 'flat'])),
          links: Type.Optional(lit(['default', 'accent'])),
          font: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Record(Type.String(), Type.Unknown())])),
          icons: Type.Optional(lit(['regular', 'solid', 'duotone', 'light', 'thin'])),
          sidebar: Type.Optional(
            Type.Object({ background: Type.Optional(lit(['default', 'filled'])), list: Type.Optional(lit(['default', 'pill', 'line'])) }),
          ),
          search: Type.Optional(lit(['prominent', 'subtle'])),
        },
        { additionalProperties: true },
      ),
    ),
    internationalization: Type.Optional(Type.Object({ locale: lit(['en', 'fr', 'es', 'zh', 'ja', 'de', 'nl', 'no', 'pt-br', 'ru']) })),
    favicon: Type.Optional(
      Type.Union([
        Type.Object({
          icon: Type.Object({
            light: Type.String({ format: 'uri', maxLength: 2048 }),
            dark: Type.String({ format: 'uri', maxLength: 2048 }),
          }),
        }),
        Type.Object({ emoji: Type.String({ maxLength: 50 }) }),
        Type.Object({}, { additionalProperties: false }),
      ]),
    ),
  },
  { additionalProperties: true },
);

export const OrgParams = Type.Object({ organizationId: Id });
export const SiteParams = Type.Object({ organizationId: Id, siteId: Id });

export const ListSitesQuery = Type.Intersect([
  ListQuery,
  Type.Object({
    space: Type.Optional(Id),
    title: Type.Optional(Type.String({ maxLength: 128 })),
    published: Type.Optional(Type.Boolean()),
  }),
]);

export const CreateSiteBody = Type.Object({
  type: Type.Optional(SiteType),
  title: Type.Optional(SiteTitle),
  visibility: Type.Optional(SiteVisibility),
  spaces: Type.Optional(Type.Array(Id, { maxItems: 100 })),
});

export const UpdateSiteBody = Type.Object({
  title: Type.Optional(SiteTitle),
  visibility: Type.Optional(SiteVisibility),
  basename: Type.Optional(SiteBasename),
  hostname: Type.Optional(nullable({ maxLength: 512, pattern: HOSTNAME_PATTERN })),
  adaptiveContent: Type.Optional(Type.Object({ enabled: Type.Boolean() })),
  defaultSiteSpace: Type.Optional(Id),
  defaultSiteSection: Type.Optional(Id),
  proxy: Type.Optional(nullable({ maxLength: 512, pattern: PROXY_PATTERN })),
});

export const AdaptiveSchemaBody = Type.Object({ jsonSchema: Type.Record(Type.String(), Type.Unknown()) });

export const PublishingAuthBody = Type.Object({
  backend: Type.Optional(Type.Literal('custom')),
  fallbackURL: Type.Optional(nullable({ format: 'uri', maxLength: 2048, pattern: '^https?://' })),
  logoutURL: Type.Optional(nullable({ format: 'uri', maxLength: 2048, pattern: '^https?://' })),
});

export const PublishedQuery = Type.Object({ shareKey: Type.Optional(Type.String({ maxLength: 512 })) });

const StructurePointer = Type.Object({
  type: Type.Union([
    Type.Literal('site-space'),
    Type.Literal('site-section'),
    Type.Literal('site-section-group'),
    Type.Literal('site-external-link'),
  ]),
  id: Id,
});

/** sortSiteStructure's body: the item, and the sibling it goes before or after (neither: the end). */
export const SortStructureBody = Type.Object({
  item: StructurePointer,
  position: Type.Object({ before: Type.Optional(StructurePointer), after: Type.Optional(StructurePointer) }),
});

/** GitBook's SiteStructureItem, as sortSiteStructure answers the item moved. */
export const SiteStructureItemSchema = Type.Union([SiteSpaceSchema, SiteSectionSchema, SiteSectionGroupSchema]);

/** The `Prefer` header of operations that may answer without the resource (`return=minimal`: 204). */
export const PreferHeaders = Type.Object({
  prefer: Type.Optional(Type.Union([Type.Literal('return=minimal'), Type.Literal('return=representation')])),
});

/** getSitePublishingPreviewById's query: the site-space to open, the visitor's claims (rison), draft, and where to open. */
export const PreviewQuery = Type.Object({
  siteSpace: Type.Optional(Id),
  claims: Type.Optional(Type.String({ maxLength: 4096, description: 'Rison encoded visitor claims, such as (plan:pro)' })),
  draft: Type.Optional(Type.Boolean({ default: true })),
  target: Type.Optional(Type.String({ maxLength: 2048, description: 'A path of the site, or a URL of the site, to open the preview on' })),
});

export const PreviewSchema = Type.Object({ url: Type.String() });

/** GitBook's SiteStructure: sections and section groups in order, or the root site-spaces of a site without sections. */
export const SiteStructureSchema = Type.Union([
  Type.Object({ type: Type.Literal('sections'), structure: Type.Array(Type.Union([SiteSectionSchema, SiteSectionGroupSchema])) }),
  Type.Object({ type: Type.Literal('siteSpaces'), structure: Type.Array(SiteSpaceSchema) }),
]);

export const PublishedSiteSchema = Type.Object({
  object: Type.Literal('published-content-site'),
  site: SiteSchema,
  structure: SiteStructureSchema,
  customizations: Type.Object({ site: CustomizationSchema, siteSpaces: Type.Record(Type.String(), CustomizationSchema) }),
  scripts: Type.Array(Type.Unknown()),
});
