#!/usr/bin/env node
// Entry point of the published package: checks the Node version before loading anything else.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(
    `dedup-verify needs Node.js 20.19 or newer (this is ${process.versions.node}). Install Node 20 LTS or later and try again.\n`,
  );
  process.exit(2);
}
const { main } = await import('../dist/src/cli/main.js');
process.exit(await main(process.argv));
