/** Where the installed package lives: its fixtures and schema, from src/ or dist/src/. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';

/** The package root (for fixtures/reference-app.config.json), from src/ or dist/src/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'fixtures', 'reference-app.config.json'))) return dir;
    dir = dirname(dir);
  }
  throw new ConfigError('The reference-app config (fixtures/reference-app.config.json) is missing from this installation; reinstall dedup-verify.');
}

export function referenceAppConfigPath(): string {
  return join(packageRoot(), 'fixtures', 'reference-app.config.json');
}

/** The config of an app profile of the reference app (`run --virtual --app-profile NAME`). */
export function appProfileConfigPath(profile: string): string {
  return join(packageRoot(), 'fixtures', 'profiles', `${profile}.config.json`);
}
