import { eventType } from '@catalog/contracts';
import { registeredEvent } from '@catalog/platform';

test('registeredEvent: product, resource kind and schema version from the registry; the data as given', () => {
  const definition = eventType('entity.created');
  const facts = { resourceId: 'e1', dmrn: 'DMRN-1', data: { entityType: 'track' } };
  expect(registeredEvent('entity.created', facts)).toEqual({
    type: 'entity.created',
    product: definition.product,
    resourceKind: definition.resourceKind,
    schemaVersion: definition.schemaVersion,
    ...facts,
  });
});

test('registeredEvent: data that does not match the registered schema, or an unregistered type, is refused', () => {
  expect(() => registeredEvent('entity.created', { resourceId: 'e1', dmrn: null, data: { entityType: 5 } })).toThrow(
    /event entity\.created does not match its registered schema/,
  );
  expect(() => registeredEvent('entity.exploded', { resourceId: 'e1', dmrn: null, data: {} })).toThrow(/unregistered event type/);
});
