import { Type } from 'typebox';
import { Id, ListOf, Timestamp } from '../schemas.ts';

const bool = Type.Boolean();

export const OrganizationSchema = Type.Object({
  object: Type.Literal('organization'),
  id: Type.String(),
  title: Type.String(),
  createdAt: Timestamp,
  type: Type.String(),
  emailDomains: Type.Array(Type.String()),
  plan: Type.String(),
  inviteLinks: Type.Boolean(),
  sso: Type.Boolean(),
  ai: Type.Boolean(),
  defaultRole: Type.Union([Type.String(), Type.Null()]),
  mergeRules: Type.Object({ type: Type.String() }),
  trial: Type.Object({ status: Type.String(), count: Type.Integer() }),
  urls: Type.Object({ location: Type.String(), app: Type.String() }),
  permissions: Type.Object({
    view: bool,
    access: bool,
    admin: bool,
    ownTeam: bool,
    createContent: bool,
    createOpenAPISpec: bool,
    viewBilling: bool,
    listMembers: bool,
    listTeams: bool,
    listIntegrations: bool,
    listInstallations: bool,
    installIntegration: bool,
  }),
});

export const OrganizationList = ListOf(OrganizationSchema);
export const OrgParams = Type.Object({ organizationId: Id });
