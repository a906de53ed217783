/**
 * Run variables as a process's environment. Linux caps one environment string at 128 KiB, and a
 * webhook payload may be 256 KiB: a value over `ENV_VALUE_LIMIT` is passed empty, so the process
 * still starts (docs/decisions.md, "Webhooks"). Prompts get the whole text; a webhook run's exact
 * payload is also in `$TRIGGER_PAYLOAD_FILE`.
 */

export const ENV_VALUE_LIMIT = 96 * 1024;

export function processVariables(variables: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    // Bytes, not characters: the cap is on the encoded string.
    env[name] = value.length * 3 <= ENV_VALUE_LIMIT || Buffer.byteLength(value) <= ENV_VALUE_LIMIT ? value : '';
  }
  return env;
}

/**
 * A node's process environment with the node span's `TRACEPARENT` (docs/decisions.md, "Traces"),
 * replacing any the server itself was started with; unchanged when the run is not traced.
 */
export function withTraceparent(env: NodeJS.ProcessEnv, traceparent: string | undefined): NodeJS.ProcessEnv {
  return traceparent ? { ...env, TRACEPARENT: traceparent } : env;
}
