import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Bundles an integration's source as `gitbook publish` does (packages/cli/src/build.ts of GitbookIO/integrations). */
export async function bundleIntegration(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, sourcefile: 'index.ts', loader: 'ts' },
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
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
