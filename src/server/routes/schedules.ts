import * as z from 'zod';
import { defineRoute } from '../route.js';

/** Schedules (docs/decisions.md, "Schedules"): each `triggers.schedule` entry and its next firing. */

const ScheduleViewSchema = z.object({
  workflow: z.string(),
  cron: z.string(),
  timezone: z.string().nullable().describe("an IANA zone; null: the server's"),
  overlap: z.enum(['skip', 'queue']),
  next_at: z.string().nullable().describe('the next firing, ISO'),
  last_due_at: z.string().nullable().describe('the due time last handled (fired, skipped or missed), ISO'),
  last_run_id: z.string().nullable(),
});

export const scheduleRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/schedules',
    summary: "The schedules of the server's workflows, with the next firing of each",
    tag: 'schedules',
    responses: { 200: { description: 'Schedules', schema: z.object({ schedules: z.array(ScheduleViewSchema) }) } },
    handle: async ({ ctx }) => ({ schedules: await ctx.schedules.list() }),
  }),
];
