/* global module */
// The layers of src/ (docs/ARCHITECTURE.md), checked by `npm run lint` (depcruise src):
//
//   front ends: cli/, server/, web/  →  client/  →  domain  →  store/  →  shared/
//   app/ is the composition root (knows everything but the CLI); runtime.ts is the CLI's lazy door
//   into the bundled runtime.
//
// Type-only imports are seen (tsPreCompilationDeps) and labelled `type-only`: they cost nothing at
// run time, so a front end may name a domain type, but they still count for cycles, since a cycle of
// types is still two modules that cannot be understood one without the other.

/** The domain's folders: everything that decides, with no knowledge of how it is reached. Each is a room with one front door, its index.ts. */
const DOMAIN_FOLDERS =
  'runs|queue|pulls|landing|benchmarks|workflows|catalog|agents|conversations|coordination|config|system|events|processes|webhooks|schedules|workspaces|tracing';
const DOMAIN = `^src/(${DOMAIN_FOLDERS})/`;
/**
 * Modules the client takes values from past their folder's front door. The CLI loads the client
 * unbundled on every command, and a front door loads all its folder (zod, the engine, …), which
 * `svc status` must not (test/cli/lazy-load.test.ts): these are the few small, dependency-free
 * modules the client needs at run time — run states, the lifecycle table the dashboard's buttons
 * follow, which events settle a run, the DAG drawing, the execution plan and the patch lines.
 */
const CLIENT_LIGHT_MODULES = ['^src/runs/model/(statuses|lifecycle|events)\\.ts$', '^src/workflows/(draw|plan)\\.ts$', '^src/workspaces/patch-lines\\.ts$'];
const RUNTIME = '^src/runtime\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'through-the-front-door',
      severity: 'error',
      comment:
        'From outside a domain folder, import only its index.ts (docs/ARCHITECTURE.md, "Rooms and front doors"): what a folder offers is said in one file, and its other files can change without breaking anyone. A module loaded on first use is reached through a loader the index exports.',
      from: { path: '^src/([^/]+)', pathNot: '^src/client/' },
      to: { path: DOMAIN, pathNot: ['^src/$1/', `^src/(${DOMAIN_FOLDERS})/index\\.ts$`] },
    },
    {
      name: 'client-light-modules-only',
      severity: 'error',
      comment: 'The one exception to the front door: the client may take values from the light modules above, and nothing else past a front door.',
      from: { path: '^src/client/' },
      to: { path: DOMAIN, pathNot: [...CLIENT_LIGHT_MODULES, `^src/(${DOMAIN_FOLDERS})/index\\.ts$`] },
    },
    {
      name: 'client-names-domain-types-only',
      severity: 'error',
      comment: 'Through a front door the client names types only: a value would load the whole folder into every CLI command.',
      from: { path: '^src/client/' },
      to: { path: `^src/(${DOMAIN_FOLDERS})/index\\.ts$`, dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'workflows-imports-only-shared',
      severity: 'error',
      comment: 'workflows/ is the definition language, pure: every other folder may read a workflow, so it reads none of them.',
      from: { path: '^src/workflows/' },
      to: { path: '^src/', pathNot: '^src/(workflows|shared)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles (docs/ARCHITECTURE.md): each module can be read, tested and loaded after what it imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-imports-nothing-of-ours',
      severity: 'error',
      comment: 'shared/ is the bottom layer: settings, errors, ids, logging, files. It imports no other folder of src/.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'store-imports-only-shared',
      severity: 'error',
      comment: 'The store persists records; it knows no domain, front end or composition root.',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/(store|shared)/' },
    },
    {
      name: 'domain-stays-below-front-ends',
      severity: 'error',
      comment:
        'The domain never reaches up: not into the server, the CLI, the client, the composition root or the runtime door. It gets what it needs as arguments.',
      from: { path: DOMAIN },
      to: { path: ['^src/(server|cli|client|app)/', RUNTIME] },
    },
    {
      name: 'client-below-front-ends',
      severity: 'error',
      comment: 'The client is what both front ends use; it knows neither of them, nor the composition root, nor the store behind the domain.',
      from: { path: '^src/client/' },
      to: { path: '^src/(server|cli|app|store)/' },
    },
    {
      name: 'server-not-into-cli-or-client',
      severity: 'error',
      comment: 'The server is a front end: it never uses the CLI, nor the client that front ends are built on.',
      from: { path: '^src/server/' },
      to: { path: '^src/(cli|client)/' },
    },
    {
      name: 'cli-only-through-client',
      severity: 'error',
      comment:
        'The CLI uses the client, shared helpers and (lazily) runtime.ts; it never reaches the store, the server or the composition root, not even for a type.',
      from: { path: '^src/cli/' },
      to: { path: '^src/', pathNot: ['^src/(cli|client|shared)/', RUNTIME, DOMAIN] },
    },
    {
      name: 'cli-names-domain-types-only',
      severity: 'error',
      comment: 'The CLI may name a domain type (`import type`: it loads nothing); domain code reaches it only through the client.',
      from: { path: '^src/cli/' },
      to: { path: DOMAIN, dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'cli-loads-runtime-lazily',
      severity: 'error',
      comment: 'runtime.ts pulls in the whole bundled runtime: the CLI imports it with `await import()` when a command needs it, so `svc --help` stays fast.',
      from: { path: '^src/cli/' },
      to: { path: RUNTIME, dependencyTypesNot: ['dynamic-import', 'type-only', 'type-import'] },
    },
    {
      name: 'web-only-through-client',
      severity: 'error',
      comment:
        'The dashboard (src/web) runs in a browser: it reaches the API only through the client (over fetch), and may import nothing that needs Node, the server or the store.',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/(web|client)/' },
    },
    {
      name: 'nothing-imports-web',
      severity: 'error',
      comment: 'The dashboard is a top front end, built on its own into dist/web (scripts/build-web.mjs); no other code imports it.',
      from: { pathNot: '^src/web/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment: 'The CLI is a top front end: only its own files import it (the composition root included).',
      from: { pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-dev-dependencies-at-run-time',
      severity: 'error',
      comment:
        'Dev dependencies (linters, test and build tools) are not installed with svc; src/ may name their types only. The dashboard (src/web) is the exception: its libraries are bundled into dist/web at build time.',
      from: { path: '^src/', pathNot: '^src/web/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'tracing-alone-loads-opentelemetry',
      severity: 'error',
      comment:
        'The OpenTelemetry SDK is loaded only when tracing is on (docs/decisions.md, "Traces"): only the SDK side of tracing/ (its otel-*.ts modules) imports it.',
      from: { pathNot: '^src/tracing/otel-[^/]+\\.ts$' },
      to: { path: 'node_modules/@opentelemetry/', dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'opentelemetry-loads-lazily',
      severity: 'error',
      comment:
        'tracing/otel-*.ts load the SDK: from outside them they are reached only with `await import()` (openTracing in tracing/index.ts), so a process without an OTLP endpoint never loads it.',
      from: { pathNot: '^src/tracing/otel-[^/]+\\.ts$' },
      to: { path: '^src/tracing/otel-[^/]+\\.ts$', dependencyTypesNot: ['dynamic-import', 'type-only', 'type-import'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment: 'A package used from src/ must be in package.json, not merely present in node_modules.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are kept (and labelled), so cycles through types are found too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
