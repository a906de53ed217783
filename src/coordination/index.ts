/** The coordination folder's front door: what the rest of svc may use of it. */
export { localCoordination } from './local.js';
export type {
  AnsweringCoordination,
  Coordination,
  ForwardedStop,
  HomeCoordination,
  RunAnnouncements,
  RunCoordination,
  RunLocation,
  TakenConversation,
  WorkspaceChange,
} from './types.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresCoordination = () => import('./postgres.js');
