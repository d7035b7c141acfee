import { Type } from 'typebox';
import { Id, ListOf, Role, RoleOrNull, Timestamp } from '../schemas.ts';

const bool = Type.Boolean();

export const TeamRef = Type.Object({
  object: Type.Literal('team'),
  id: Type.String(),
  title: Type.String(),
  members: Type.Integer(),
  spaces: Type.Integer(),
  createdAt: Timestamp,
  permissions: Type.Object({ admin: bool, view: bool }),
});

export const SamlProviderSchema = Type.Object({
  object: Type.Literal('saml-provider'),
  id: Type.String(),
  label: Type.String(),
  ssoURL: Type.String(),
  entityID: Type.String(),
  certificate: Type.String(),
  defaultTeam: Type.Optional(TeamRef),
  defaultRole: RoleOrNull,
  createdAt: Timestamp,
  status: Type.Union([Type.Literal('active'), Type.Literal('pending')], {
    description: '`active` once ssoURL, entityID and certificate are all set; `pending` before',
  }),
  service: Type.Object({
    acsURL: Type.String({ description: 'Assertion Consumer Service URL to give the identity provider' }),
    startURL: Type.String({ description: 'Where a sign-in starts (redirects to the identity provider)' }),
    entityID: Type.String({ description: "This service provider's entity ID (audience); serves its SAML metadata" }),
  }),
  urls: Type.Object({ location: Type.String() }),
});
export const SamlProviderList = ListOf(SamlProviderSchema);

export const OrgParams = Type.Object({ organizationId: Id });
export const ProviderParams = Type.Object({ organizationId: Id, samlProviderId: Id });

export const Label = Type.String({ minLength: 1, maxLength: 30 });
export const EntityId = Type.String({ maxLength: 1024, description: "The identity provider's entity ID (Issuer of its assertions)" });
export const Certificate = Type.String({ maxLength: 10000, description: "The identity provider's X.509 signing certificate, PEM" });
export const SsoUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  description: "The identity provider's single sign-on URL (HTTP-Redirect binding)",
});

const fields = {
  entityID: Type.Optional(EntityId),
  certificate: Type.Optional(Certificate),
  ssoURL: Type.Optional(SsoUrl),
  defaultTeam: Type.Optional(Type.Union([Id, Type.Null()], { description: 'A team of the organization new SSO members join' })),
  defaultRole: Type.Optional(
    Type.Union([Role, Type.Null()], { description: 'Role given to people who join through this provider (null: guest); default read' }),
  ),
};

export const CreateSamlProviderBody = Type.Object({ label: Label, ...fields });
export const UpdateSamlProviderBody = Type.Object({ label: Type.Optional(Label), ...fields });

export const SsoLoginList = Type.Object({
  items: Type.Array(Type.Object({ id: Type.String(), label: Type.String(), startURL: Type.String() })),
});
