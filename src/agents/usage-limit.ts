/**
 * Recognises an agent's "usage limit" / "rate limit" ending and the time it says the limit resets
 * (docs/decisions.md, "Usage limits"). Pure: the messages are the CLIs' own wording, and the
 * time is read relative to `now` (a clock time like `3pm` is the next such local time).
 */

/** What a usage-limit message says: the reset time it names, or null when it names none. */
export interface UsageLimit {
  resumeAt: Date | null;
}

// Claude Code: "Claude AI usage limit reached|1760000000", "5-hour limit reached ∙ resets 3pm",
// "API Error: 429 {…rate_limit_error…}"; Codex: "You've hit your usage limit. … try again at 3:15 PM.";
// Gemini CLI (ACP): the API's "RESOURCE_EXHAUSTED" / "Quota exceeded for quota metric …".
const LIMIT = /usage limit|limit reached|rate[_ ]limit|\b429\b|too many requests|resource[_ ]exhausted|quota exceeded/i;
// A full context window ("Context limit reached") is no usage limit: waiting would not help. Nor
// is a full disk's quota (EDQUOT, "Disk quota exceeded"), which "quota exceeded" would match.
const CONTEXT = /context (?:window |length )?limit/i;
const NOT_A_LIMIT = /disk quota exceeded|\bEDQUOT\b/gi;

/** The message's reset time: unix seconds after a `|`, an ISO time, `resets 3pm` / `try again at 3:15 PM`, or `try again in 2 hours 5 minutes` (`resets in …`). */
export function parseResetTime(text: string, now: Date): Date | null {
  const epoch = /\|\s*(\d{10})\b/.exec(text);
  if (epoch) return new Date(Number(epoch[1]) * 1000);
  const iso = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/.exec(text);
  if (iso && !Number.isNaN(Date.parse(iso[0]))) return new Date(iso[0]);
  const clock = /\b(?:resets?|try again)\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*([ap])?\.?m?\b/i.exec(text);
  if (clock) {
    let hour = Number(clock[1]);
    const minute = Number(clock[2] ?? 0);
    const half = clock[3]?.toLowerCase();
    if (hour > 23 || minute > 59 || (half && (hour < 1 || hour > 12))) return null;
    if (half === 'p' && hour < 12) hour += 12;
    if (half === 'a' && hour === 12) hour = 0;
    const at = new Date(now);
    at.setHours(hour, minute, 0, 0);
    // The next such time: later today, else tomorrow.
    if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
    return at;
  }
  const span = /\b(?:try again|resets?) in\s+((?:\d+\s*(?:days?|hours?|minutes?|mins?|seconds?|secs?)[\s,and]*)+)/i.exec(text);
  if (span) {
    const unitMs: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
    let ms = 0;
    for (const [, amount, unit] of span[1]!.matchAll(/(\d+)\s*([dhms])/gi)) ms += Number(amount) * unitMs[unit!.toLowerCase()]!;
    return new Date(now.getTime() + ms);
  }
  return null;
}

/**
 * What Claude Code's `rate_limit_event` line says (stream-json, 2.x: `{"type":"rate_limit_event",
 * "rate_limit_info":{"status":"allowed"|"allowed_warning"|"rejected","resetsAt":<unix seconds>,
 * "rateLimitType":"five_hour",…},…}`, the shape read from the pinned 2.1.328's own schema): whether
 * the account's limit now refuses requests, and when that limit resets. Null for any other line or
 * a status it does not know. Structured, so it is read before the wording of the error that follows.
 */
export function readRateLimitEvent(line: Record<string, unknown>): { rejected: boolean; resetsAt: Date | null } | null {
  if (line.type !== 'rate_limit_event') return null;
  const info = line.rate_limit_info as Record<string, unknown> | undefined;
  const status = info?.status;
  if (status !== 'allowed' && status !== 'allowed_warning' && status !== 'rejected') return null;
  const seconds = info!.resetsAt;
  const resetsAt = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : null;
  // A rejection the account's overage (extra usage) serves anyway refuses nothing.
  return { rejected: status === 'rejected' && info!.isUsingOverage !== true, resetsAt };
}

/** Whether an agent's failure text is a usage or rate limit, and when it resets; null when it is another failure. */
export function detectUsageLimit(text: string, now: Date = new Date()): UsageLimit | null {
  if (!LIMIT.test(text.replace(NOT_A_LIMIT, '')) || CONTEXT.test(text)) return null;
  return { resumeAt: parseResetTime(text, now) };
}

/**
 * Claude Code has ended some limit hits with a *successful* result whose text is the notice
 * ("Claude AI usage limit reached|…"): only a short text that is the notice itself counts, so a
 * reply that discusses limits is still a reply.
 */
export function isUsageLimitNotice(text: string): boolean {
  return (
    text.length < 300 && !CONTEXT.test(text) && /^\s*(?:claude ai usage limit reached|(?:[\w-]+ )?limit reached\b|you've hit your usage limit)/i.test(text)
  );
}
