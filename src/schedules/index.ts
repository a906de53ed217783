/** Schedules (docs/decisions.md, "Schedules"): cron triggers of workflows, fired once each, durably. */
export { openScheduleRepository, type ScheduleState, type ScheduleStateRepository } from './repository.js';
export { scheduleId, ScheduleService, type ScheduleDeps, type ScheduleView, type ScheduledWorkflow, type TickOutcome } from './service.js';
export { SCHEDULE_STATE_COLLECTION } from './repository.js';
export { scheduledWorkflows } from './scheduled-workflows.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresSchedules = () => import('./postgres-repository.js');
