/**
 * Where the optional `@napi-rs/keyring` is loaded from (docs/sign-in.md#sign-in-stores): the
 * package's own dependencies under Node; beside the file under a single executable
 * (docs/install.md#install-executable), whose application can hold JavaScript but not the native
 * module, and whose `import()` of a package name resolves nothing.
 */
import { createRequire } from 'node:module';
import { isSea } from 'node:sea';
import { dirname, join } from 'node:path';
import type { KeyringModule } from './keychainStore.js';

export interface KeyringPlace {
  /** True in a single executable (`node:sea`). */
  readonly sea: boolean;
  /** The executable (`process.execPath`); its folder's `node_modules` holds the module. */
  readonly execPath: string;
}

export const processKeyringPlace = (): KeyringPlace => ({ sea: isSea(), execPath: process.execPath });

/**
 * Loads the module; rejects with where it was looked for. Under a single executable the module
 * is `<folder of the executable>/node_modules/@napi-rs/keyring` (`npm install @napi-rs/keyring`
 * in that folder), resolved as Node resolves a package from a file in that folder.
 */
export async function loadKeyringModule(place: KeyringPlace = processKeyringPlace()): Promise<KeyringModule> {
  if (!place.sea) {
    // A specifier in a variable: the bundle neither needs nor inlines the optional dependency.
    const specifier = '@napi-rs/keyring';
    return (await import(specifier)) as KeyringModule;
  }
  const folder = dirname(place.execPath);
  try {
    return createRequire(join(folder, 'package.json'))('@napi-rs/keyring') as KeyringModule;
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`not found beside the executable, in ${join(folder, 'node_modules')} (${why})`, {
      cause: error,
    });
  }
}
