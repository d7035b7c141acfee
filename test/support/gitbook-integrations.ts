import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/**
 * GitBook's own integrations from GitbookIO/integrations, as fixtures (test/fixtures/integrations/;
 * scripts/build-integration-fixtures.ts rebuilds them): their manifests and assets as they are, their
 * scripts built as `gitbook publish` builds them.
 */
export type GitBookIntegrationName = 'mermaid' | 'webhook' | 'googleanalytics';

const FIXTURES = fileURLToPath(new URL('../fixtures/integrations/', import.meta.url));

/**
 * The body `gitbook publish` sends to `publishIntegration` for the integration (packages/cli/src/publish.ts):
 * every field of its manifest, images as base64, the built script, and `organization` given in
 * place of the manifest's (GitBook's), as an integrator publishing to this service sets it.
 */
export async function cliPublishRequest(name: GitBookIntegrationName, organization: string): Promise<Record<string, unknown>> {
  const dir = `${FIXTURES}${name}/`;
  const manifest = parse(await readFile(`${dir}gitbook-manifest.yaml`, 'utf8')) as Record<string, any>;
  const image = async (path: string) => (await readFile(new URL(path, `file://${dir}`))).toString('base64');
  return {
    runtime: 'v2',
    title: manifest.title,
    icon: manifest.icon ? await image(manifest.icon) : undefined,
    description: manifest.description ?? '',
    summary: manifest.summary,
    scopes: manifest.scopes ?? [],
    categories: manifest.categories,
    blocks: manifest.blocks,
    contentSources: manifest.contentSources,
    configurations: manifest.configurations,
    secrets: manifest.secrets,
    visibility: manifest.visibility,
    target: manifest.target,
    organization,
    externalLinks: manifest.externalLinks,
    previewImages: await Promise.all(((manifest.previewImages as string[] | undefined) ?? []).map(image)),
    contentSecurityPolicy: manifest.contentSecurityPolicy,
    script: await readFile(`${dir}script.js`, 'utf8'),
  };
}
