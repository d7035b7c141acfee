// Plain JavaScript that any Node runs: the service's `.ts` sources need Node's built-in type stripping
// (Node 22.18 or newer). Loaded with `node --import ./scripts/check-node.js …` by the npm scripts, before
// the entry point, so an older Node says so in one line instead of failing on the `.ts` extension.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `docs-service needs Node.js 22.18 or newer (24 recommended); this is Node ${process.versions.node} (${process.execPath}).\n`,
  );
  process.exit(1);
}

// Compiled code, and the sources stripped of their types, are cached on disk between starts
// (NODE_COMPILE_CACHE names the directory; by default one under the system's temporary directory;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off). A process that finds its modules there starts faster
// and never loads the type stripper, about 20 MB less resident memory.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
