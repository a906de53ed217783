import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOG_LEVELS, type LogLevel } from './settings.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export interface LoggerOptions {
  level: LogLevel;
  /** JSON-lines file (`$SVC_HOME/logs/svc.log`); omitted → no file. */
  file?: string | undefined;
  /** Where readable lines go; omitted → none (the CLI keeps stderr for its own messages). */
  stderr?: { write(text: string): unknown } | undefined;
}

function readableValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  if (value instanceof Error) return JSON.stringify(value.message);
  return JSON.stringify(value);
}

function serialize(value: unknown): unknown {
  if (value instanceof Error) return { message: value.message, stack: value.stack };
  return value;
}

/**
 * Structured logging: one JSON object per line in the log file (machine-readable, greppable by
 * `event`), and a readable `time LEVEL event key=value` line on stderr for the person at the
 * terminal. Writes are synchronous on purpose: audit entries must not be lost in a crash, and a
 * log line is far rarer than a run event.
 */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  let fileReady = false;

  const write = (level: LogLevel, event: string, fields: LogFields = {}) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const at = new Date().toISOString();
    if (options.file) {
      try {
        if (!fileReady) {
          mkdirSync(dirname(options.file), { recursive: true });
          fileReady = true;
        }
        const entry: LogFields = { at, level, event };
        for (const [key, value] of Object.entries(fields)) entry[key] = serialize(value);
        appendFileSync(options.file, `${JSON.stringify(entry)}\n`);
      } catch {
        // A full disk or a removed home must not take the server down with it; stderr still gets the line.
      }
    }
    if (options.stderr) {
      const pairs = Object.entries(fields)
        .filter(([key]) => key !== 'stack')
        .map(([key, value]) => `${key}=${readableValue(value)}`)
        .join(' ');
      options.stderr.write(`${at.slice(11, 19)} ${level.toUpperCase().padEnd(5)} ${event}${pairs ? ` ${pairs}` : ''}\n`);
    }
  };

  return {
    debug: (event, fields) => write('debug', event, fields),
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
    error: (event, fields) => write('error', event, fields),
  };
}

/** A logger that drops everything (tests of pure modules, CLI read-only paths). */
export const silentLogger: Logger = createLogger({ level: 'error' });
