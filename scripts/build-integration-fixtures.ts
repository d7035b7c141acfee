/**
 * Rebuilds the fixtures of GitBook's own integrations (test/fixtures/integrations/<name>/) from a
 * checkout of GitbookIO/integrations:
 *
 *   git clone --depth 1 https://github.com/GitbookIO/integrations /tmp/gitbook-integrations
 *   node scripts/build-integration-fixtures.ts /tmp/gitbook-integrations
 *
 * Each fixture keeps the integration's manifest and assets as they are, and its script built as
 * `gitbook publish` builds it (test/support/integration-bundle.ts), against this project's
 * `@gitbook/runtime` and `@gitbook/api`. The tests publish them with the request the CLI sends.
 */
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { bundleIntegrationFile } from '../test/support/integration-bundle.ts';

const GITBOOK_INTEGRATIONS = ['mermaid', 'webhook', 'googleanalytics'] as const;

const checkout = process.argv[2];
if (!checkout) {
  console.error('usage: node scripts/build-integration-fixtures.ts <checkout of GitbookIO/integrations>');
  process.exit(2);
}
const fixtures = fileURLToPath(new URL('../test/fixtures/integrations/', import.meta.url));
for (const name of GITBOOK_INTEGRATIONS) {
  const source = join(resolve(checkout), 'integrations', name);
  const manifestPath = join(source, 'gitbook-manifest.yaml');
  const manifest = parse(await readFile(manifestPath, 'utf8')) as { script: string };
  const script = await bundleIntegrationFile(join(source, manifest.script));
  const target = join(fixtures, name);
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  await cp(manifestPath, join(target, 'gitbook-manifest.yaml'));
  await cp(join(source, 'assets'), join(target, 'assets'), { recursive: true });
  await writeFile(join(target, 'script.js'), script);
  const version = (JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as { version: string }).version;
  await writeFile(join(target, 'VERSION'), `${version}\n`);
  console.log(`${name} ${version}: ${script.length} bytes of script -> ${dirname(join(target, 'x'))}`);
}
