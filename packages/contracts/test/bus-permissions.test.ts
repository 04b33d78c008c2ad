import { busPermissions, operationsServedBy } from '../src/bus/permissions.js';
import { eventTypes } from '../src/events/registry.js';
import { internalOperations, routes } from '../src/routes.js';

/** NATS subject matching: `*` one token, `>` one or more at the end. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i += 1) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

const users = busPermissions();
const who = (list: 'publish' | 'subscribe', subject: string) =>
  users
    .filter((user) => user[list].some((pattern) => matches(pattern, subject)))
    .map((user) => user.user)
    .sort();

describe('NATS permissions derived from the route table (decision 0055)', () => {
  test('the gateway calls the public operations (and the services a route names also call it); only the owning service answers them', () => {
    for (const route of routes.filter((r) => r.service !== 'gateway')) {
      const subject = `cs.rpc.${route.service}.${route.operationId}`;
      const also: readonly string[] = 'alsoCalledBy' in route ? route.alsoCalledBy : [];
      expect({ subject, callers: who('publish', subject), answerers: who('subscribe', subject) }).toEqual({
        subject,
        callers: ['gateway', ...also].sort(),
        answerers: [route.service],
      });
    }
    expect(who('publish', 'cs.rpc.asset.getAsset')).toEqual(['analysis', 'catalog', 'gateway']);
    expect(who('publish', 'cs.rpc.analysis.getAnalysis')).toEqual(['gateway', 'library']);
    expect(who('publish', 'cs.rpc.asset.createAsset')).toEqual(['gateway']);
  });

  test('internal operations: answered by their service, called only by the services the table names', () => {
    expect(internalOperations.map((o) => o.operationId)).toEqual([
      'createVersionAsset',
      'attachAsset',
      'releaseAsset',
      'locateAssetListener',
      'getOrganizationProducts',
      'listEntityTenants',
      'readEntities',
      'resolveAnalysisSource',
      'applyCuePointMarkers',
      'recordAssetState',
    ]);
    for (const operation of internalOperations) {
      const subject = `t1.rpc.${operation.service}.${operation.operationId}`;
      expect({ subject, callers: who('publish', subject), answerers: who('subscribe', subject) }).toEqual({
        subject,
        callers: [...operation.calledBy].sort(),
        answerers: [operation.service],
      });
    }
    expect(who('publish', 't1.rpc.asset.attachAsset')).toEqual(['catalog']);
    expect(who('publish', 't1.rpc.asset.locateAssetListener')).toEqual(['gateway']);
    expect(who('publish', 't1.rpc.catalog.listEntityTenants')).toEqual(['library']);
    expect(who('publish', 't1.rpc.catalog.readEntities')).toEqual(['library']);
    // The projection reads entities only through readEntities (decision 0111).
    expect(who('publish', 't1.rpc.catalog.getEntity')).toEqual(['gateway']);
    expect(who('publish', 't1.rpc.catalog.resolveAnalysisSource')).toEqual(['analysis']);
    // A confirmation tells the catalog of a version's file before it answers (decision 0115).
    expect(who('publish', 't1.rpc.catalog.recordAssetState')).toEqual(['asset']);
    expect(operationsServedBy('asset')).toEqual(
      expect.arrayContaining(['createAsset', 'createVersionAsset', 'attachAsset', 'releaseAsset']),
    );
  });

  test('every registered event type is published by exactly one service, and received by nobody through a plain subscription', () => {
    for (const { type, product } of eventTypes) {
      const subject = `cs.events.${product}.${type}`;
      const publisher =
        product === 'library' ? 'library' : type.startsWith('asset.') ? 'asset' : type.startsWith('analysis.') ? 'analysis' : 'catalog';
      expect({ type, publishers: who('publish', subject), subscribers: who('subscribe', subject) }).toEqual({
        type,
        publishers: [publisher],
        subscribers: [],
      });
    }
    expect(who('publish', 'cs.events.library.anything.happened')).toEqual(['library']);
  });

  test('only the analysis service queues analysis jobs (their analysis.queued events, decision 0126); no other work queue is open', () => {
    expect(who('publish', 'cs.events.catalog.analysis.queued')).toEqual(['analysis']);
    expect(who('subscribe', 'cs.events.catalog.analysis.queued')).toEqual([]);
    expect(who('publish', 'cs.analysis.jobs.loudness')).toEqual([]);
  });

  test('nobody may read another user’s replies; the gateway answers only its internal operations and uses no JetStream', () => {
    for (const user of users) expect(who('subscribe', `_INBOX.${user.user}.abc.1`)).toEqual([user.user]);
    const gateway = users.find((user) => user.user === 'gateway')!;
    expect(gateway.subscribe.filter((subject) => subject.includes('.rpc.'))).toEqual(['*.rpc.gateway.getOrganizationProducts']);
    expect(who('subscribe', 't1.rpc.gateway.createOrganization')).toEqual([]);
    expect(who('publish', 't1.rpc.gateway.getOrganizationProducts')).toEqual(['library']);
    expect(gateway.publish.filter((subject) => subject.startsWith('$JS'))).toEqual([]);
  });

  test('only the gateway publishes the notices of organisation changes; only the library hears them (decision 0149)', () => {
    expect(who('publish', 'cs.gateway.organization-changes')).toEqual(['gateway']);
    expect(who('subscribe', 'cs.gateway.organization-changes')).toEqual(['library']);
  });

  test('only the gateway replicas publish and hear the notices of API-key changes', () => {
    expect(who('publish', 'cs.gateway.key-changes')).toEqual(['gateway']);
    expect(who('subscribe', 'cs.gateway.key-changes')).toEqual(['gateway']);
  });
});
