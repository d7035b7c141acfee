import { Type } from 'typebox';
import { Id, ListOf, Timestamp } from '../schemas.ts';

const bool = Type.Boolean();

/**
 * GitBook's MergeRules configuration as a request states it. Rule kinds and their parameters are
 * checked by the service (parseMergeRules), which names what is wrong.
 */
export const MergeRulesInput = Type.Object({
  type: Type.String({ maxLength: 20 }),
  rules: Type.Optional(
    Type.Array(
      Type.Object({
        rule: Type.String({ maxLength: 100 }),
        users: Type.Optional(Type.Array(Id, { maxItems: 100 })),
        expression: Type.Optional(Type.Unknown()),
        message: Type.Optional(Type.String({ maxLength: 1000 })),
      }),
      { maxItems: 50 },
    ),
  ),
});

/** A stored MergeRules configuration as answered. */
export const MergeRulesSchema = Type.Object({
  type: Type.String(),
  rules: Type.Optional(
    Type.Array(
      Type.Object({
        rule: Type.String(),
        users: Type.Optional(Type.Array(Type.String())),
        expression: Type.Optional(Type.String()),
        message: Type.Optional(Type.String()),
      }),
    ),
  ),
});

export const OrganizationSchema = Type.Object({
  object: Type.Literal('organization'),
  id: Type.String(),
  title: Type.String(),
  createdAt: Timestamp,
  type: Type.String(),
  emailDomains: Type.Array(Type.String()),
  plan: Type.String(),
  inviteLinks: Type.Boolean(),
  defaultRole: Type.Union([Type.String(), Type.Null()]),
  mergeRules: MergeRulesSchema,
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
export const UpdateOrganizationBody = Type.Object({ mergeRules: MergeRulesInput });
