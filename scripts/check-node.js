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
