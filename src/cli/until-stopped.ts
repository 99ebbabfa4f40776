/** Resolves when SIGINT, SIGTERM or `signal` asks a long-running command to stop. */
export function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop);
  });
}
