import { Migration0001Foundation } from './Migration0001Foundation.ts';
import { Migration0002Content } from './Migration0002Content.ts';
import { Migration0003Teams } from './Migration0003Teams.ts';
import { Migration0005OpenApi } from './Migration0005OpenApi.ts';
import { Migration0004OrgSettings } from './Migration0004OrgSettings.ts';
import { Migration0007TeamsExtra } from './Migration0007TeamsExtra.ts';
import { Migration0006Saml } from './Migration0006Saml.ts';
import { Migration0008Comments } from './Migration0008Comments.ts';
import { Migration0009Pdf } from './Migration0009Pdf.ts';
import { Migration0010SpaceCounters } from './Migration0010SpaceCounters.ts';
import { Migration0011GitSync } from './Migration0011GitSync.ts';
import { Migration0013Sites } from './Migration0013Sites.ts';
import { Migration0014SearchTitles } from './Migration0014SearchTitles.ts';
import { Migration0015SearchState } from './Migration0015SearchState.ts';
import { Migration0016CredentialScope } from './Migration0016CredentialScope.ts';
import { Migration0017ReusableContent } from './Migration0017ReusableContent.ts';
import { Migration0018SiteTokens } from './Migration0018SiteTokens.ts';
import { Migration0019SiteRedirects } from './Migration0019SiteRedirects.ts';
import { Migration0020Reviews } from './Migration0020Reviews.ts';
import { Migration0021Invites } from './Migration0021Invites.ts';
import { Migration0022MergeRules } from './Migration0022MergeRules.ts';
import { Migration0023SpacePdf } from './Migration0023SpacePdf.ts';
import { Migration0024ReviewComments } from './Migration0024ReviewComments.ts';
import { Migration0025ContentInvites } from './Migration0025ContentInvites.ts';
import { Migration0026GroupStructure } from './Migration0026GroupStructure.ts';
import { Migration0027RevisionPageCascade } from './Migration0027RevisionPageCascade.ts';
import { Migration0028ChangeFeed } from './Migration0028ChangeFeed.ts';
import { Migration0029GitSyncHandOff } from './Migration0029GitSyncHandOff.ts';
import { Migration0030EmailInvites } from './Migration0030EmailInvites.ts';
import { Migration0031TokenFeed } from './Migration0031TokenFeed.ts';
import { Migration0032AuditLog } from './Migration0032AuditLog.ts';
import { Migration0033BlobRegistry } from './Migration0033BlobRegistry.ts';
import { Migration0034SiteInsights } from './Migration0034SiteInsights.ts';
import { Migration0035SitePermissions } from './Migration0035SitePermissions.ts';
import { Migration0036IntegrationInstallations } from './Migration0036IntegrationInstallations.ts';
import { Migration0038IntegrationEvents } from './Migration0038IntegrationEvents.ts';
import { Migration0039SiteDrafts } from './Migration0039SiteDrafts.ts';
import { Migration0040InstallationTokenExpiry } from './Migration0040InstallationTokenExpiry.ts';
import { Migration0041IntegrationDevMode } from './Migration0041IntegrationDevMode.ts';
import { Migration0042ChangeRequestIntegrationAuthor } from './Migration0042ChangeRequestIntegrationAuthor.ts';
import { Migration0043InsightsRollupTypeIndex } from './Migration0043InsightsRollupTypeIndex.ts';

/**
 * Every migration, in order; append new ones. Numbers are reserved per resource group:
 * 0002 content and change requests, 0003 teams and grants, 0004 organization settings
 * (custom fields, translations, integrations), 0005 OpenAPI specs, 0006 SAML.
 * Every table that hangs off a space references it with `on delete cascade`, so the purge of a
 * deleted space removes everything in one statement (`revision_page`, whose rows are copied in
 * bulk, is emptied by a trigger on `revision` instead of a foreign key: 0027).
 */
export const migrations = [Migration0001Foundation, Migration0002Content, Migration0003Teams, Migration0004OrgSettings, Migration0005OpenApi, Migration0006Saml, Migration0007TeamsExtra, Migration0008Comments, Migration0009Pdf, Migration0010SpaceCounters, Migration0011GitSync, Migration0013Sites, Migration0014SearchTitles, Migration0015SearchState, Migration0016CredentialScope, Migration0017ReusableContent, Migration0018SiteTokens, Migration0019SiteRedirects, Migration0020Reviews, Migration0021Invites, Migration0022MergeRules, Migration0023SpacePdf, Migration0024ReviewComments, Migration0025ContentInvites, Migration0026GroupStructure, Migration0027RevisionPageCascade, Migration0028ChangeFeed, Migration0029GitSyncHandOff, Migration0030EmailInvites, Migration0031TokenFeed, Migration0032AuditLog, Migration0033BlobRegistry, Migration0034SiteInsights, Migration0035SitePermissions, Migration0036IntegrationInstallations, Migration0038IntegrationEvents, Migration0039SiteDrafts, Migration0040InstallationTokenExpiry, Migration0041IntegrationDevMode, Migration0042ChangeRequestIntegrationAuthor, Migration0043InsightsRollupTypeIndex];
