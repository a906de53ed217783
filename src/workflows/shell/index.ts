/**
 * Bash scripts of workflow nodes: where each `$<id>.output` sits in the script's quoting
 * (contexts.ts, found by the scanner), and which uses of a value from outside svc cannot make safe
 * (check.ts; docs/workflows.md, "Values from outside in bash").
 */

export { UNSAFE_SHELL_CONTEXTS, unsafeContextAdvice } from './contexts.js';
export type { ShellContext } from './contexts.js';
export { scanShell } from './scanner.js';
export { checkedWhole, outsideValueProblems } from './check.js';
