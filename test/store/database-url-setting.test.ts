// SVC_DATABASE_URL selects the PostgreSQL store; unset or empty keeps the file store; anything but a
// postgres URL is refused at start without echoing the value (it may hold a password).
import { expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/shared/settings.js';

it('reads SVC_DATABASE_URL, and leaves it undefined when unset or empty', () => {
  expect(loadSettings({}).databaseUrl).toBeUndefined();
  expect(loadSettings({ SVC_DATABASE_URL: '' }).databaseUrl).toBeUndefined();
  expect(loadSettings({ SVC_DATABASE_URL: 'postgres://svc@db.internal:5432/svc' }).databaseUrl).toBe('postgres://svc@db.internal:5432/svc');
  expect(loadSettings({ SVC_DATABASE_URL: ' postgresql://localhost/svc ' }).databaseUrl).toBe('postgresql://localhost/svc');
});

it('refuses a URL of another kind without showing it', () => {
  const attempt = () => loadSettings({ SVC_DATABASE_URL: 'mysql://root:hunter2@db/svc' });
  expect(attempt).toThrow(SettingsError);
  expect(attempt).toThrow(/SVC_DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
  expect(attempt).not.toThrow(/hunter2/);
});
