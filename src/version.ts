import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function readVersion(): string {
  // dist/src/version.js and src/version.ts are both two levels below package.json.
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === 'dedup-verify' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const VERSION: string = readVersion();
