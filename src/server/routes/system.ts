import * as z from 'zod';
import { updateCheck } from '../../system/index.js';
import { defineRoute } from '../route.js';

export const systemRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/update-check',
    summary: 'Update check (source builds never call out)',
    tag: 'system',
    responses: {
      200: {
        description: 'Update check result',
        schema: z.object({ updateAvailable: z.boolean(), currentVersion: z.string(), latestVersion: z.string(), releaseUrl: z.string() }),
      },
    },
    handle: ({ ctx }) => updateCheck(ctx.version),
  }),
];
