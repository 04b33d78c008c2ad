import { busPermissions, inboxPrefixOf, type BusPermissions } from './permissions.js';

/**
 * A user of nats-server's `authorization` block: a service's (with its permissions), or one of the
 * extra users of local and test servers: `admin` (no restrictions, for tests and tools) and
 * `nobody` (may only receive replies on its own inbox: what anyone else who reaches NATS gets).
 */
export type NatsUser = BusPermissions | { user: string; unrestricted: true };

/** The local extras; never part of a deployment's authorization (the chart's copy has none). */
export const LOCAL_NATS_USERS: readonly NatsUser[] = [
  { user: 'admin', unrestricted: true },
  { user: 'nobody', publish: [], subscribe: [`${inboxPrefixOf('nobody')}.>`], allowResponses: false },
];

/** Where a user's password comes from: a literal (local servers) or an environment variable of nats-server. */
export type NatsPasswordSource = { literal: (user: string) => string } | { environment: (user: string) => string };

/** The environment variable a deployment's nats-server reads a service's password from, as the services do. */
export function natsPasswordVariable(user: string): string {
  return `${user.toUpperCase()}_NATS_PASSWORD`;
}

const quote = (value: string): string => JSON.stringify(value);
const list = (values: readonly string[]): string => `[${values.map(quote).join(', ')}]`;

function renderUser(user: NatsUser, passwords: NatsPasswordSource): string {
  const password = 'literal' in passwords ? quote(passwords.literal(user.user)) : `$${passwords.environment(user.user)}`;
  const lines = ['    {', `      user: ${quote(user.user)}`, `      password: ${password}`];
  if (!('unrestricted' in user)) {
    lines.push('      permissions: {');
    // An empty allow list would allow everything: a user that may publish nothing is denied `>`.
    lines.push(user.publish.length > 0 ? `        publish: { allow: ${list(user.publish)} }` : '        publish: { deny: [">"] }');
    lines.push(`        subscribe: { allow: ${list(user.subscribe)} }`);
    if (user.allowResponses) lines.push('        allow_responses: true');
    lines.push('      }');
  }
  lines.push('    }');
  return lines.join('\n');
}

/**
 * nats-server's `authorization` block for `users` (default: the services'). Deployments load the
 * chart's copy, which takes each password from an environment variable (`$CATALOG_NATS_PASSWORD`);
 * local servers get literal passwords in a file only their owner may read.
 */
export function renderNatsAuthorization(passwords: NatsPasswordSource, users: readonly NatsUser[] = busPermissions()): string {
  return [
    '# nats-server authorization of the catalog service: one user per service (decision 0055).',
    '# Generated from the route table by `npm run nats:authorization`; do not edit.',
    'authorization {',
    '  users = [',
    users.map((user) => renderUser(user, passwords)).join('\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}
