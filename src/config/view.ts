import type { AppContext } from '../app/context.js';

/** The safe subset of configuration shown by `GET /api/config` and `svc config show`: no env values, no secrets. */
export function configView(ctx: AppContext) {
  return {
    ...ctx.assistants.get(),
    host: ctx.listening?.host ?? ctx.settings.host,
    port: ctx.listening?.port ?? ctx.settings.port ?? null,
    home: ctx.settings.home,
    maxConcurrentRuns: ctx.settings.maxConcurrentRuns,
    agentFirstEventTimeoutMs: ctx.settings.agentFirstEventTimeoutMs,
    logLevel: ctx.settings.logLevel,
    version: ctx.version,
  };
}
export type ConfigView = ReturnType<typeof configView>;
