/** Schedules (docs/decisions.md, "Schedules"): cron triggers of workflows, fired once each, durably. */
export { openScheduleRepository, type ScheduleState, type ScheduleStateRepository } from './repository.js';
export { scheduleId, ScheduleService, type ScheduleDeps, type ScheduleView, type ScheduledWorkflow, type TickOutcome } from './service.js';
