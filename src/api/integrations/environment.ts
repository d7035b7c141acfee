import { LRUCache } from 'lru-cache';
import { findContentInstallation, findInstallation, findIntegration, insertInstallationToken } from '../../db/integrations.ts';
import { integrationScript } from '../../db/integration-events.ts';
import { organizationsByIds } from '../../db/organizations.ts';
import { siteById } from '../../db/sites.ts';
import { transaction, type Em } from '../../db/orm.ts';
import { hashToken, newId, newInstallationToken } from '../../domain/ids.ts';
import {
  IntegrationSandboxError,
  type IntegrationSandbox,
  type IntegrationScript,
  type SandboxFetchRequest,
  type SandboxResponse,
} from '../../lib/integration-sandbox.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { HttpError } from '../errors.ts';
import { urlsFor } from '../object-urls.ts';
import { organizationFacts } from '../orgs/service.ts';
import { openSiteSigningKey } from '../sites/keys.ts';
import { presentContentInstallation, presentInstallation, presentIntegration } from './present.ts';

/** What a dispatch to an integration needs besides the event: the script to run and the environment it runs with. */
export interface DispatchTarget {
  script: IntegrationScript;
  environment: Record<string, unknown>;
}

/**
 * Who an event or a render is for: an installation of an integration, and the space or site it is
 * about; or the integration itself (no `installationId`: a request to its own public endpoint).
 */
export interface DispatchFor {
  integrationName: string;
  installationId?: string;
  spaceId?: string;
  siteId?: string;
}

/**
 * The script and environment of a dispatch (GitBook's `IntegrationEnvironment`): the integration
 * and installation as the API shows them, the space or site installation it is about, the
 * integration's secrets (opened here, never stored anywhere else), the API endpoint, and a token
 * acting as the installation, valid for `tokenTtlMs`: minted for the dispatch, or with `reuse` one
 * this process minted for the installation that still has half of it left. The service mints
 * no integration-wide token: the installation's stands in as `apiTokens.integration`, and a
 * dispatch for the integration itself carries no token. Its `signingSecrets` are derived from the
 * service's secrets key per integration, installation and space or site installation, except a
 * site installation's for an integration with `site:visitor:auth`: that is the site's visitor
 * signing key, as on GitBook, so visitor authentication integrations sign the tokens the site
 * accepts. In development mode, the script is the
 * integrator's tunnel for the owner's organization (and its own dispatches), for every organization
 * with `all`. Undefined when the integration, its script or the installation is gone.
 */
export async function dispatchTarget(
  em: Em,
  target: DispatchFor,
  options: { publicUrl: string; secrets: () => Promise<SecretBox>; tokenTtlMs: number; reuse?: boolean },
): Promise<DispatchTarget | undefined> {
  const urls = urlsFor(options.publicUrl);
  const [script, integration, installation] = await Promise.all([
    integrationScript(em, target.integrationName),
    findIntegration(em, target.integrationName),
    target.installationId === undefined ? undefined : findInstallation(em, target.integrationName, target.installationId),
  ]);
  if (!script || !integration || (target.installationId !== undefined && !installation)) return undefined;
  // One round trip for what the integration and the installation lead to.
  const [owners, facts, spaceInstallation, siteInstallation] = await Promise.all([
    organizationsByIds(em, [integration.ownerId]),
    organizationFacts(em, [integration.ownerId]),
    installation && target.spaceId ? findContentInstallation(em, 'space', installation.id, target.spaceId) : undefined,
    installation && target.siteId ? findContentInstallation(em, 'site', installation.id, target.siteId) : undefined,
  ]);
  const owner = owners[0];
  if (!owner) return undefined;
  const box = await options.secrets();
  const secrets: Record<string, string> = script.secretsSealed
    ? JSON.parse(box.open(script.secretsSealed, `integration:${script.name}`))
    : {};
  // Only a visitor authentication integration is given the site's own signing key (below).
  const signsVisitors = integration.scopes.includes('site:visitor:auth');
  const site =
    signsVisitors && siteInstallation && installation
      ? await siteById(em, installation.organizationId, siteInstallation.targetId)
      : undefined;
  const token = installation ? await installationToken(em, installation.id, options.tokenTtlMs, options.reuse ?? false) : undefined;
  const environment: Record<string, unknown> = {
    integration: presentIntegration(integration, { row: owner, facts: facts.get(owner.id)! }, new Map(), urls),
    ...(installation ? { installation: presentInstallation(installation, 0, urls) } : {}),
    ...(spaceInstallation
      ? { spaceInstallation: presentContentInstallation('space', spaceInstallation, spaceInstallation.targetId, urls) }
      : {}),
    ...(siteInstallation
      ? { siteInstallation: presentContentInstallation('site', siteInstallation, siteInstallation.targetId, urls) }
      : {}),
    apiEndpoint: options.publicUrl,
    apiTokens: token ? { integration: token, installation: token } : {},
    signingSecrets: {
      integration: box.derive(`integration-signing:${integration.name}`),
      ...(installation ? { installation: box.derive(`integration-installation-signing:${installation.id}`) } : {}),
      ...(installation && spaceInstallation
        ? { spaceInstallation: box.derive(`integration-space-signing:${installation.id}:${spaceInstallation.targetId}`) }
        : {}),
      ...(installation && siteInstallation
        ? {
            siteInstallation:
              // Visitor authentication (`site:visitor:auth`): the site's own signing key, with which the
              // integration signs the tokens its visitors come back with (GitBook's va-* integrations).
              site && signsVisitors
                ? openSiteSigningKey(box, site)
                : box.derive(`integration-site-signing:${installation.id}:${siteInstallation.targetId}`),
          }
        : {}),
    },
  };
  // Development mode: the owner's own events (all of them with `all`) go to the integrator's tunnel.
  const tunnelUrl =
    script.devTunnelUrl !== null && (script.devAll || !installation || installation.organizationId === integration.ownerId)
      ? script.devTunnelUrl
      : undefined;
  return {
    script: { name: script.name, version: script.version, code: script.script, secrets, ...(tunnelUrl ? { tunnelUrl } : {}) },
    environment,
  };
}

/**
 * Runs a dispatch the caller waits for (a render, a public endpoint, a site script) in the API
 * process's sandbox: a script that cannot start or is stopped by its limits is a 502 starting with
 * `failure`; whatever the script answers is answered.
 */
export async function dispatchForRequest(
  sandbox: IntegrationSandbox,
  target: DispatchTarget,
  event: Record<string, unknown>,
  failure: string,
  fetchRequest?: SandboxFetchRequest,
): Promise<SandboxResponse> {
  try {
    return await sandbox.dispatch(target.script, event, target.environment, fetchRequest);
  } catch (error) {
    if (error instanceof IntegrationSandboxError) throw new HttpError(502, `${failure}: ${error.message}`);
    throw error;
  }
}

/**
 * Tokens this process minted for dispatches with `reuse` (renders, which a page view may ask for
 * several times), by installation: one row written per installation every half TTL at most,
 * rather than one per render.
 */
const reusable = new LRUCache<string, { token: string; expiresAt: number }>({ max: 1000 });

async function installationToken(em: Em, installationId: string, ttlMs: number, reuse: boolean): Promise<string> {
  const now = Date.now();
  const kept = reuse ? reusable.get(installationId) : undefined;
  if (kept && kept.expiresAt - now >= ttlMs / 2) return kept.token;
  const token = newInstallationToken();
  const expiresAt = now + ttlMs;
  await transaction(em, (tx) =>
    insertInstallationToken(tx, {
      id: newId(),
      installationId,
      tokenHash: hashToken(token),
      createdBy: null,
      createdAt: new Date(now),
      expiresAt: new Date(expiresAt),
    }),
  );
  if (reuse) reusable.set(installationId, { token, expiresAt });
  return token;
}
