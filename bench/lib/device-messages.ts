/** The IPC messages between device-process.ts (parent) and device-child.ts. */
export type ParentMessage = { readonly kind: 'take'; readonly id: number } | { readonly kind: 'stop' };

export type ChildMessage =
  | { readonly kind: 'ready'; readonly serial: string; readonly port: number }
  | { readonly kind: 'opened'; readonly id: number; readonly names: readonly string[] }
  | { readonly kind: 'stopped' };
