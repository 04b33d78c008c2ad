// Import direction of the services and packages (decision 0128), checked by `npm test`
// (test/dev/import-direction.test.ts). Run it by hand from the repository root:
//
//   npx depcruise --config .dependency-cruiser.mjs --output-type err services packages
//
// (`--output-type text` lists every resolved import, e.g. to see why a rule fires). The rules read
// TypeScript sources: workspace packages (@catalog/*) resolve through their `source` export
// condition to packages/*/src, and `./x.js` specifiers to the `./x.ts` beside them.

// A layer folder sits at src/ or in a feature folder one level below it (decision 0155).
const inFeature = '(?:[^/]+/|)';
// One service's layer folder (the capture groups are the service's name and the folder's).
const src = (folders) => `^services/([^/]+)/src/${inFeature}(${folders})/`;
// The same service's layer folder, in any feature, `$1` being the name captured by `from`.
const same = (folders) => `^services/$1/src/${inFeature}(${folders})/`;

// The feature folders of the services that have them (decision 0155), lowest first: a feature
// imports the service's shared folders and the features before it, never one after it, and the
// shared folders import no feature (`rpc/operations.ts`, which assembles the features' handlers,
// and the root files may).
const features = {
  catalog: ['entity-types', 'relations', 'molecules', 'integrations', 'versions', 'entities', 'imports'],
};
const featureRules = Object.entries(features).flatMap(([service, order]) => [
  {
    name: 'shared-below-features',
    severity: 'error',
    comment: 'The folders every feature shares (src/domain, src/persistence, src/integration) import no feature.',
    from: { path: `^services/${service}/src/(domain|persistence|integration)/` },
    to: { path: `^services/${service}/src/(${order.join('|')})/` },
  },
  ...order.slice(0, -1).map((feature, index) => ({
    name: 'feature-order',
    severity: 'error',
    comment: "A feature imports only the features before it in its service's order, so no two features use each other.",
    from: { path: `^services/${service}/src/${feature}/` },
    to: { path: `^services/${service}/src/(${order.slice(index + 1).join('|')})/` },
  })),
]);

const entryPoints = '^services/[^/]+/src/(service|main)[.]ts$';
// What a service starts and wires in service.ts: its request handlers and its message consumers.
const handlers = 'http|rpc|consumers';
// The folders that receive work from outside (handlers, workers, and the messaging/ folder of the
// services that still keep their consumers there).
const edges = `${handlers}|workers|messaging`;

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes the modules in it one unit: none can be read, tested or loaded without the others.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'No folder imports back from a folder that imports it (e.g. domain/ and integration/ using each other).',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import the cruise cannot resolve is one no rule can check.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-service-to-service',
      severity: 'error',
      comment: 'Services reach one another over the bus through packages/contracts, never by importing each other.',
      from: { path: '^services/([^/]+)/src/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'handlers-only-from-entry-points',
      severity: 'error',
      comment:
        'http/, rpc/ and consumers/ are the edges a service starts: only its service.ts (and main.ts) wires them, ' +
        'so nothing below reaches back up into a handler.',
      from: { path: '^services/([^/]+)/src/', pathNot: [entryPoints, src(edges)] },
      to: { path: same(handlers) },
    },
    {
      name: 'handlers-apart',
      severity: 'error',
      comment: 'An edge uses its own kind of folder, never another edge (an rpc/ module does not import consumers/).',
      from: { path: src(edges) },
      to: { path: same(handlers), pathNot: `^services/$1/src/${inFeature}$2/` },
    },
    {
      name: 'handlers-through-domain',
      severity: 'error',
      comment:
        'http/ and rpc/ handlers call domain/, which reads and writes through persistence/; a handler may name ' +
        "persistence's types (the database it passes down), never call a query.",
      from: { path: src('http|rpc') },
      to: { path: same('persistence'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'consumers-through-domain',
      severity: 'error',
      comment:
        'Consumers and workers turn a message or a job into a call of domain/, never a query of their own ' +
        "(persistence's types they may name).",
      from: { path: src('consumers|workers|messaging') },
      to: { path: same('persistence'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-not-up',
      severity: 'error',
      comment: 'domain/ is called by the edges (http, rpc, consumers, workers), never the other way.',
      from: { path: src('domain') },
      to: { path: same('workers|messaging') },
    },
    {
      name: 'persistence-not-up',
      severity: 'error',
      comment:
        'persistence/ holds the queries over the tables (and the events recorded beside the writes): it knows no domain rule, edge or client.',
      from: { path: src('persistence') },
      to: { path: same('domain|integration|workers|messaging') },
    },
    {
      name: 'integration-not-up',
      severity: 'error',
      comment: "integration/ holds clients of other services' operations, which domain/ calls: it calls nothing back.",
      from: { path: src('integration') },
      to: { path: same('domain|workers|messaging') },
    },
    {
      name: 'integration-runs-no-query',
      severity: 'error',
      comment: "A client of another service runs no query of its own (persistence's types it may name).",
      from: { path: src('integration') },
      to: { path: same('persistence'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'migrations-frozen',
      severity: 'error',
      comment:
        "A migration is frozen: it imports only other migrations and packages, never the service's domain, " +
        'tables or configuration, which change after it has run.',
      from: { path: '^services/([^/]+)/src/migrations/' },
      to: { path: '^services/$1/', pathNot: '^services/$1/src/migrations/' },
    },
    {
      name: 'platform-not-to-services',
      severity: 'error',
      comment: 'packages/platform is what every service is built on: it knows no service.',
      from: { path: '^packages/platform/' },
      to: { path: '^services/' },
    },
    {
      name: 'platform-generic-contracts-only',
      severity: 'error',
      comment:
        "packages/platform uses the contracts' generic parts (operation and event machinery, validation) through " +
        "the package's entry, never one service's routes, schemas or events.",
      from: { path: '^packages/platform/' },
      to: {
        path: '^packages/contracts/src/(routes|schemas|events)/',
        pathNot: '^packages/contracts/src/(routes|events)/(types|registry)[.]ts$',
      },
    },
    {
      name: 'contracts-is-a-leaf',
      severity: 'error',
      comment: 'packages/contracts describes the interfaces: it imports no platform, service or test code.',
      from: { path: '^packages/contracts/' },
      to: { path: '^(services|packages/(platform|testing))/' },
    },
    {
      name: 'testing-not-at-runtime',
      severity: 'error',
      comment: "packages/testing holds test fixtures: no service's or package's sources import it, only tests.",
      from: { path: '^(services/[^/]+|packages/platform)/src/' },
      to: { path: '^packages/testing/' },
    },
    ...featureRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['source', 'import', 'require', 'node', 'default'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
