/** The binaries on the device's PATH (/system/bin), by name. */
import type { Command, CommandRegistry } from '../types.js';

export class CommandTable implements CommandRegistry {
  private readonly commands = new Map<string, Command>();

  /** Registers (or replaces) a binary; `name` is the bare name (`am`, not `/system/bin/am`). */
  register(name: string, command: Command): void {
    if (name === '' || name.includes('/')) throw new Error(`command name must be a bare name, got "${name}"`);
    this.commands.set(name, command);
  }

  get(name: string): Command | undefined {
    return this.commands.get(name);
  }

  has(name: string): boolean {
    return this.commands.has(name);
  }

  /** Removes a binary (e.g. sqlite3 on a user build). */
  unregister(name: string): boolean {
    return this.commands.delete(name);
  }

  names(): string[] {
    return [...this.commands.keys()].sort();
  }
}
