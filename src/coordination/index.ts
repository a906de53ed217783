/**
 * The one seam between this process and the others sharing its store (docs/decisions.md,
 * "Coordination seam"): `localCoordination` when one process owns everything, the PostgreSQL one
 * (through its loader) when several servers share a database.
 */
export { localCoordination } from './local.js';
export type {
  AnsweringCoordination,
  Coordination,
  ForwardedStop,
  HomeCoordination,
  PullCoordination,
  QueueCoordination,
  RunAnnouncements,
  RunCoordination,
  RunLocation,
  TakenConversation,
  WorkspaceChange,
} from './types.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresCoordination = () => import('./postgres.js');
