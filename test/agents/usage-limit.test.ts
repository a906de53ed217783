// The usage-limit notices of Claude Code and Codex, as they print them, and the reset times they name.
import { describe, expect, it } from 'vitest';
import { detectUsageLimit, isUsageLimitNotice, parseResetTime, readRateLimitEvent } from '../../src/agents/usage-limit.js';

// A fixed local time: 10:30 on 26 Nov 2026 (the machine's zone, as `resets 3pm` means).
const NOW = new Date(2026, 10, 26, 10, 30, 0);
const local = (day: number, hour: number, minute = 0) => new Date(2026, 10, day, hour, minute, 0).toISOString();

describe('detectUsageLimit', () => {
  it("takes a full disk's quota (EDQUOT) for no usage limit, and still knows the API's quota", () => {
    expect(detectUsageLimit("EDQUOT: Disk quota exceeded, write '/home/u/.gemini/tmp/chat.json'", NOW)).toBeNull();
    expect(detectUsageLimit('cp: error writing out.bin: Disk quota exceeded', NOW)).toBeNull();
    expect(detectUsageLimit('Quota exceeded for quota metric generate_content_requests', NOW)).toEqual({ resumeAt: null });
  });

  it('reads the unix time after the bar of "Claude AI usage limit reached|<epoch>"', () => {
    expect(detectUsageLimit('Claude AI usage limit reached|1795000000', NOW)?.resumeAt?.toISOString()).toBe(new Date(1795000000 * 1000).toISOString());
  });

  it('reads "resets 3pm" as the next 3 pm, today or tomorrow', () => {
    expect(detectUsageLimit('5-hour limit reached ∙ resets 3pm', NOW)?.resumeAt?.toISOString()).toBe(local(26, 15));
    expect(detectUsageLimit('Session limit reached ∙ resets 9am (Europe/Berlin)', NOW)?.resumeAt?.toISOString()).toBe(local(27, 9));
    expect(detectUsageLimit('Claude usage limit reached. Your limit will reset at 12am', NOW)?.resumeAt?.toISOString()).toBe(local(27, 0));
    expect(detectUsageLimit('limit reached ∙ resets 12am', NOW)?.resumeAt?.toISOString()).toBe(local(27, 0));
  });

  it('reads codex\'s "try again at 3:15 PM" and "try again in 1 hour 5 minutes"', () => {
    const atTime = "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again at 3:15 PM.";
    expect(detectUsageLimit(atTime, NOW)?.resumeAt?.toISOString()).toBe(local(26, 15, 15));
    const inSpan = "You've hit your usage limit. Upgrade to Plus to continue using Codex, or try again in 1 hour 5 minutes.";
    expect(detectUsageLimit(inSpan, NOW)?.resumeAt?.toISOString()).toBe(new Date(NOW.getTime() + 65 * 60_000).toISOString());
    expect(detectUsageLimit('usage limit reached, resets in 2 days', NOW)?.resumeAt?.toISOString()).toBe(
      new Date(NOW.getTime() + 2 * 86_400_000).toISOString(),
    );
  });

  it('reads an ISO time', () => {
    expect(detectUsageLimit('rate limit reached; resets at 2026-11-26T18:00:00Z', NOW)?.resumeAt?.toISOString()).toBe('2026-11-26T18:00:00.000Z');
  });

  it('knows an API 429 / rate_limit_error without a time (resumeAt null: the default applies)', () => {
    const api = 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit"}}';
    expect(detectUsageLimit(api, NOW)).toEqual({ resumeAt: null });
  });

  it('leaves other failures alone', () => {
    expect(detectUsageLimit('API Error: 400 {"type":"error","error":{"type":"invalid_request_error"}}', NOW)).toBeNull();
    expect(detectUsageLimit('fake failure', NOW)).toBeNull();
    expect(detectUsageLimit('Context limit reached · /compact or /clear to continue', NOW)).toBeNull();
    expect(parseResetTime('resets 25pm', NOW)).toBeNull();
  });
});

describe('isUsageLimitNotice', () => {
  it('is the notice itself, never a reply that talks about limits', () => {
    expect(isUsageLimitNotice('Claude AI usage limit reached|1795000000')).toBe(true);
    expect(isUsageLimitNotice('5-hour limit reached ∙ resets 3pm')).toBe(true);
    expect(isUsageLimitNotice('Context limit reached · /compact or /clear to continue')).toBe(false);
    expect(isUsageLimitNotice('I added a check: when the usage limit reached its maximum, the queue waits.')).toBe(false);
  });
});

describe('readRateLimitEvent', () => {
  // The shape of Claude Code 2.1.328's stream-json `rate_limit_event`, as its own schema in the pinned
  // binary declares it (status, resetsAt in unix seconds, rateLimitType, isUsingOverage, …).
  const event = (info: Record<string, unknown>) => ({ type: 'rate_limit_event', rate_limit_info: info, uuid: 'u-1', session_id: 's-1' });

  it('a rejection, with its reset in unix seconds', () => {
    const line = event({ status: 'rejected', resetsAt: 1767225600, rateLimitType: 'five_hour', isUsingOverage: false });
    expect(readRateLimitEvent(line)).toEqual({ rejected: true, resetsAt: new Date('2026-01-01T00:00:00Z') });
    expect(readRateLimitEvent(event({ status: 'rejected' }))).toEqual({ rejected: true, resetsAt: null });
  });

  it('allowed and allowed_warning refuse nothing; nor does a rejection the overage serves', () => {
    expect(readRateLimitEvent(event({ status: 'allowed', resetsAt: 1767225600 }))).toMatchObject({ rejected: false });
    expect(readRateLimitEvent(event({ status: 'allowed_warning', resetsAt: 1767225600, utilization: 0.9 }))).toMatchObject({ rejected: false });
    expect(readRateLimitEvent(event({ status: 'rejected', resetsAt: 1767225600, isUsingOverage: true }))).toMatchObject({ rejected: false });
  });

  it('other lines, unknown statuses and unusable times', () => {
    expect(readRateLimitEvent({ type: 'result', is_error: true, result: 'Claude AI usage limit reached|1767225600' })).toBeNull();
    expect(readRateLimitEvent(event({ status: 'throttled' }))).toBeNull();
    expect(readRateLimitEvent({ type: 'rate_limit_event' })).toBeNull();
    expect(readRateLimitEvent(event({ status: 'rejected', resetsAt: '1767225600' }))).toEqual({ rejected: true, resetsAt: null });
  });
});
