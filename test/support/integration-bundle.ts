import { build, type BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The options `gitbook publish` builds a script with (packages/cli/src/build.ts of GitbookIO/integrations). */
const CLI_OPTIONS: BuildOptions = {
  platform: 'neutral',
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  write: false,
  mainFields: ['worker', 'browser', 'module', 'jsnext', 'main'],
  conditions: ['worker', 'browser', 'import', 'production'],
  define: { 'process.env.NODE_ENV': '"production"', MODE: '"production"' },
  external: ['node:*', 'cloudflare:*'],
  jsx: 'automatic',
  jsxImportSource: '@gitbook/runtime',
  loader: { '.raw.js': 'text', '.raw.css': 'text' },
  // `@gitbook/runtime` and `@gitbook/api` come from this project's dependencies, wherever the source is.
  nodePaths: [`${ROOT}node_modules`],
  logLevel: 'silent',
};

/**
 * Bundles an integration's source as `gitbook publish` does, or as `gitbook dev` does with
 * `development` (unminified; the runtime then takes events on any path, as a tunnel sends them).
 */
export async function bundleIntegration(source: string, mode: 'production' | 'development' = 'production'): Promise<string> {
  const result = await build({
    ...CLI_OPTIONS,
    ...(mode === 'development' ? { minify: false, define: { 'process.env.NODE_ENV': '"development"', MODE: '"development"' } } : {}),
    stdin: { contents: source, resolveDir: ROOT, sourcefile: 'index.ts', loader: 'ts' },
  });
  return result.outputFiles![0].text;
}

/** Bundles an integration's script file (its manifest's `script`) as `gitbook publish` does. */
export async function bundleIntegrationFile(path: string): Promise<string> {
  const result = await build({ ...CLI_OPTIONS, entryPoints: [path] });
  return result.outputFiles![0].text;
}
