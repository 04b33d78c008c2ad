import { eventType } from '@catalog/contracts';
import { eventRow, type OutboxEvent } from '@catalog/platform';

test('eventRow: product, resource kind and schema version from the registry; the data as given', () => {
  const definition = eventType('entity.created');
  const event: OutboxEvent = { type: 'entity.created', resourceId: 'e1', dmrn: 'DMRN-1', data: { entityType: 'track' } };
  expect(eventRow(event)).toEqual({
    type: 'entity.created',
    product: definition.product,
    resourceKind: definition.resourceKind,
    schemaVersion: definition.schemaVersion,
    resourceId: 'e1',
    dmrn: 'DMRN-1',
    data: { entityType: 'track' },
  });
});

test('eventRow: data that does not match the registered schema, or an unregistered type, is refused when typed loosely too', () => {
  // A value that reached the writer untyped (parsed, spread from a row) is checked at run time as well.
  const loose = (event: unknown) => event as OutboxEvent;
  expect(() => eventRow(loose({ type: 'entity.created', resourceId: 'e1', dmrn: null, data: { entityType: 5 } }))).toThrow(
    /event entity\.created does not match its registered schema/,
  );
  expect(() => eventRow(loose({ type: 'entity.exploded', resourceId: 'e1', dmrn: null, data: {} }))).toThrow(/unregistered event type/);
});

test("OutboxEvent: a writer's data is typed by the registered schema of its type (checked by the typecheck)", () => {
  const events: OutboxEvent[] = [
    { type: 'entity.updated', resourceId: 'e1', dmrn: null, data: { changedFields: ['title'] } },
    // @ts-expect-error `titel` is not a field entity.updated may name
    { type: 'entity.updated', resourceId: 'e1', dmrn: null, data: { changedFields: ['titel'] } },
    // @ts-expect-error job.succeeded's data lacks `skipped`
    {
      type: 'job.succeeded',
      resourceId: 'j1',
      dmrn: null,
      data: { jobId: 'j1', type: 'import', assetId: 'a1', processed: 1, total: 1, created: 1, updated: 0, unchanged: 0 },
    },
    // @ts-expect-error an unregistered type
    { type: 'entity.exploded', resourceId: 'e1', dmrn: null, data: {} },
    // @ts-expect-error the data of another type (markers.updated's) under version.created
    { type: 'version.created', resourceId: 'v1', dmrn: null, data: { entityId: 'e1', count: 1, types: ['cue'] } },
  ];
  // What the typecheck refuses, the run time refuses too.
  expect(events.filter((event) => !throws(() => eventRow(event)))).toEqual([events[0]]);
});

function throws(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch {
    return true;
  }
}
