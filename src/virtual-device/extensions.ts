/**
 * The device's typed extension point: how a model installed on the bare device (the Android
 * system of system/index.ts) makes itself reachable from the device without the core importing it.
 *
 * A model declares one ExtensionKey<T> per thing it shares and provides the value once; readers
 * get a T through the key, with no cast and no string names to keep in sync:
 *
 *   export const ANDROID_SYSTEM = extensionKey<AndroidSystem>('android.system');
 *   device.extensions.provide(ANDROID_SYSTEM, system);
 *   device.extensions.get(ANDROID_SYSTEM).packages   // an AndroidSystem
 *
 * A key is identified by its symbol, not its name: two keys with the same name are different
 * keys. A missing extension is an error naming the key; a second provide of a key is refused.
 */

/** What errors report of a key, whatever its value type. */
export interface ExtensionKeyName {
  readonly id: symbol;
  readonly name: string;
}

/** Names one extension of the device and the type of its value. Create with extensionKey(). */
export class ExtensionKey<T> implements ExtensionKeyName {
  readonly id: symbol;
  /**
   * Only carries T: keys of different value types are not assignable to each other (a
   * parameter and a result, so T is invariant). Never set.
   */
  declare private readonly valueType: (value: T) => T;

  constructor(readonly name: string) {
    this.id = Symbol(name);
  }

  toString(): string {
    return `extension "${this.name}"`;
  }
}

/** A new key: unique, whatever its name; the name is what errors report. */
export function extensionKey<T>(name: string): ExtensionKey<T> {
  return new ExtensionKey<T>(name);
}

/** Reading an extension that was never provided. */
export class MissingExtensionError extends Error {
  constructor(readonly key: ExtensionKeyName) {
    super(`extension "${key.name}" is not installed on this device`);
    this.name = 'MissingExtensionError';
  }
}

/** Providing an extension a second time. */
export class DuplicateExtensionError extends Error {
  constructor(readonly key: ExtensionKeyName) {
    super(`extension "${key.name}" is already installed on this device`);
    this.name = 'DuplicateExtensionError';
  }
}

/** The extensions provided to one device, by key. */
export class DeviceExtensions {
  private readonly values = new Map<symbol, unknown>();

  /** Sets key's value; refused (DuplicateExtensionError) when key already has one. */
  provide<T>(key: ExtensionKey<T>, value: T): T {
    if (this.values.has(key.id)) throw new DuplicateExtensionError(key);
    this.values.set(key.id, value);
    return value;
  }

  /**
   * Like provide, but builds the value only once key is known to be free: a refused install
   * runs none of create's side effects.
   */
  install<T>(key: ExtensionKey<T>, create: () => T): T {
    if (this.values.has(key.id)) throw new DuplicateExtensionError(key);
    return this.provide(key, create());
  }

  /** key's value; MissingExtensionError when none was provided. */
  get<T>(key: ExtensionKey<T>): T {
    if (!this.values.has(key.id)) throw new MissingExtensionError(key);
    // Only provide() stores under key.id, and it takes a T for an ExtensionKey<T>.
    return this.values.get(key.id) as T;
  }

  /** key's value, or undefined when none was provided (for optional models). */
  find<T>(key: ExtensionKey<T>): T | undefined {
    return this.values.has(key.id) ? (this.values.get(key.id) as T) : undefined;
  }

  has<T>(key: ExtensionKey<T>): boolean {
    return this.values.has(key.id);
  }
}
