/** The system folder's front door: what the rest of svc may use of it. */
export { databaseReport, healthReport, updateCheck } from './health.js';
