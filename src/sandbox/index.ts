/**
 * The sandbox room (docs/ARCHITECTURE.md): what a sandboxed process may reach (policy.ts), a call's
 * set-up (setup.ts), whether a sandbox can start here (check.ts), what it refused (denials.ts), the
 * sandbox runtime that confines a bash node (command-sandbox.ts), and `svc doctor`'s checks
 * (doctor.ts). The agents say the policy to their CLIs themselves (agents/sandbox.ts).
 */
export { expandHome, sandboxDecision, sandboxPolicy, SECRET_PATHS, type SandboxDecision, type SandboxPlan, type SandboxPolicy } from './policy.js';
export { findExecutable, sandboxUnavailable } from './check.js';
export { sandboxDoctor, type DoctorCheck, type DoctorInput, type DoctorReport, type DoctorStatus } from './doctor.js';
export { setUpSandbox, type PreparedSandbox, type SandboxSetup } from './setup.js';
export { sandboxDenials, type SandboxDenial } from './denials.js';
export { closeCommandSandbox, commandSandboxTools, sandboxCommand, type SandboxedCommand } from './command-sandbox.js';
export { isPlaceholder, PLACEHOLDER_FILES, removeLeftPlaceholders } from './placeholders.js';
export { realPathOf } from './real-path.js';
