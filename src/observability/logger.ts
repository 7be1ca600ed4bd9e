/**
 * Where the background loops (the run engine, the webhook worker, the insight
 * scheduler) report what failed: the server's pino logger, or `console`.
 */
export interface Logger {
  error(object: unknown, message?: string): void;
}
