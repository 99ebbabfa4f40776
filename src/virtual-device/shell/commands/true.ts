/** true and false (toybox toys/posix/true.c, false.c). */
import type { Command } from '../../types.js';

export const trueCommand: Command = () => Promise.resolve(0);
export const falseCommand: Command = () => Promise.resolve(1);
