/**
 * The variables of a run (docs/contract.md, "Workflow files"): the names a prompt may use besides
 * `$<id>.output`, which bash nodes get as environment variables — and where each value comes
 * from. A value from outside (a run message sent through the API, the CLI or a conversation; a
 * webhook's payload and key) is data that anyone who can reach svc chooses: the bash checks
 * (shell/check.ts) refuse the places where bash would run such a value as code, in every script
 * that names one of these variables or `ARTIFACTS_DIR` (whose files hold node outputs and the
 * payload). Adding a variable means saying here where its value comes from.
 */
export const RUN_VARIABLE_SOURCES = {
  ARGUMENTS: 'outside',
  USER_MESSAGE: 'outside',
  RUN_ID: 'svc',
  WORKFLOW_NAME: 'svc',
  ARTIFACTS_DIR: 'leads-outside', // svc's path, to the run's files: each node's output (<id>.out) and a webhook's payload
  WORKSPACE_DIR: 'svc', // the run's directory: the server's, a registered workspace's, or an existing one named by `cwd`
  SVC_PORT: 'svc', // a free port svc reserved for the run
  TRIGGER_TYPE: 'svc',
  TRIGGER_PAYLOAD: 'outside',
  TRIGGER_PAYLOAD_FILE: 'outside', // svc picks the path, but what it names is the payload: reading it reads an outside value
  WEBHOOK_EVENT: 'outside',
  WEBHOOK_IDEMPOTENCY_KEY: 'outside',
  WEBHOOK_RECEIVED_AT: 'svc',
  SCHEDULE_CRON: 'svc', // from the workflow file itself
  SCHEDULE_DUE_AT: 'svc',
} as const satisfies Record<string, 'outside' | 'leads-outside' | 'svc'>;

export type PromptVariable = keyof typeof RUN_VARIABLE_SOURCES;

/** The variables a prompt may use besides `$<id>.output`. */
export const PROMPT_VARIABLES = Object.keys(RUN_VARIABLE_SOURCES) as readonly PromptVariable[];

/** The variables whose value comes from outside svc. */
export const OUTSIDE_VARIABLES: readonly PromptVariable[] = PROMPT_VARIABLES.filter((name) => RUN_VARIABLE_SOURCES[name] === 'outside');

/** The variables through which a script takes values from outside: those values, and the path to files holding them. */
export const VARIABLES_TO_OUTSIDE: readonly PromptVariable[] = PROMPT_VARIABLES.filter((name) => RUN_VARIABLE_SOURCES[name] !== 'svc');
