/** The server's health report and the update check. */
export { databaseReport, healthReport, updateCheck } from './health.js';
