// `triggers.schedule` is validated with the rest of a workflow: a bad cron expression, an unknown
// time zone or overlap is an error at its file:line:col; a valid schedule is normalized.
import { describe, expect, it } from 'vitest';
import { validateWorkflowSource } from '../../src/workflows/validate.js';

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const HEAD = ['name: demo', 'description: d', 'nodes:', '  - id: a', '    bash: echo hi', 'triggers:', '  schedule:'];

describe('triggers.schedule', () => {
  it('reports a bad cron expression, an unknown zone and overlap, and an unknown key, each at its place', () => {
    const result = validateWorkflowSource(
      yaml(
        ...HEAD,
        '    - { cron: "61 * * * *" }',
        '    - cron: "0 9 * * 1-5"',
        '      timezone: Mars/Olympus',
        '    - { cron: "@daily", overlap: sometimes, every: 1 }',
      ),
      { filename: '/p/.svc/workflows/demo.yaml' },
    );
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toContain("/p/.svc/workflows/demo.yaml:8:15: triggers.schedule[0].cron: invalid cron expression '61 * * * *': Invalid value for minute: 61");
    expect(errors).toContain(
      "/p/.svc/workflows/demo.yaml:10:17: triggers.schedule[1].timezone: unknown time zone 'Mars/Olympus' (an IANA name such as Europe/Berlin)",
    );
    expect(errors.some((e) => e.startsWith('/p/.svc/workflows/demo.yaml:11:') && e.includes('triggers.schedule[2].overlap'))).toBe(true);
    expect(errors.some((e) => e.startsWith('/p/.svc/workflows/demo.yaml:11:') && e.includes('every'))).toBe(true);
  });

  it('normalizes a valid schedule: overlap defaults to skip', () => {
    const result = validateWorkflowSource(
      yaml(...HEAD, '    - { cron: "0 9 * * 1-5", timezone: Europe/Berlin, message: standup }', '    - { cron: "*/5 * * * *", overlap: queue }'),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.workflow.triggers.schedule).toEqual([
      { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', message: 'standup', overlap: 'skip' },
      { cron: '*/5 * * * *', timezone: undefined, message: undefined, overlap: 'queue' },
    ]);
  });
});
