/**
 * The dependency lint (`npm run lint:deps`, .ci/run; docs/architecture.md "Layers"). Dependencies point one way:
 * platform ← modules ← app (src/app.ts, src/workers.ts, src/server.ts, src/modules.ts, src/events.ts, src/cli,
 * src/mcp); src/demo (demo data, built from the modules' services) sits with the modules. Type-only imports count (tsPreCompilationDeps): a cycle through types is a cycle.
 * test/architecture/dependencies.test.ts runs this configuration on a fixture that breaks each rule.
 */

/** The app layer: what wires modules and platform together into processes. */
const APP = '^src/(app|workers|server|cli|modules|events)\\.ts$|^src/(cli|mcp)/';
/** The demo data (src/demo): built from the modules' services, used by the organizations module's demo. */
const DEMO = '^src/demo/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle (type imports counted): move the shared piece to where it belongs.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-not-to-modules-or-app',
      severity: 'error',
      comment:
        'The platform imports no module and nothing of the app layer: a module contributes through ' +
        'src/platform/modules.ts (ModuleRegistration), listed by src/modules.ts.',
      from: { path: '^src/platform/' },
      to: { path: [APP, DEMO, '^src/modules/'] },
    },
    {
      name: 'modules-not-to-app',
      severity: 'error',
      comment:
        'A module imports the platform and other modules, never the app layer (app, workers, server, cli, mcp, ' +
        'src/modules.ts, src/events.ts): what it needs from there belongs in the platform (e.g. WorkerDeps ' +
        'in src/platform/deps.ts).',
      from: { path: '^src/modules/' },
      to: { path: APP },
    },
    // ---- Module boundaries (issue 29): other modules import a module only through its index.ts. ----
    // Added by the module-index work; keep it here, after the layer rules.
    {
      name: 'modules-through-index',
      severity: 'error',
      comment:
        "A module uses another only through that module's index.ts (its public face), or its table.ts for keys " +
        'and joins; never its repo.ts, service.ts or any other file (docs/decisions.md, "Modules talk through ' +
        'index.ts"). Export what you need from the other module\'s index.ts.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/(index|table)\\.ts$'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
