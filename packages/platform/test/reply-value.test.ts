import { AppError, eventDataIssues, okReply, replyValue, type RpcReply } from '@catalog/platform';

const failed: RpcReply = { ok: false, error: { status: 404, code: 'asset_not_found', message: 'no such asset', details: { id: 'a1' } } };

test('replyValue: the body of a reply that succeeded; okReply: the reply itself', () => {
  const reply: RpcReply = { ok: true, status: 201, body: { id: 'a1' }, headers: { location: '/assets/a1' } };
  expect(replyValue<{ id: string }>(reply)).toEqual({ id: 'a1' });
  expect(okReply(reply)).toBe(reply);
});

test('replyValue and okReply throw a failed reply as the AppError it carries', () => {
  for (const read of [() => replyValue(failed), () => okReply(failed)]) {
    let thrown: unknown;
    try {
      read();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).toJSON()).toEqual(failed.ok ? null : failed.error);
  }
});

test('eventDataIssues: none for data that matches the registered schema, the issues otherwise', () => {
  expect(eventDataIssues('entity.created', { entityType: 'track' })).toEqual([]);
  expect(eventDataIssues('entity.created', { entityType: 5 }).length).toBeGreaterThan(0);
  expect(() => eventDataIssues('entity.exploded', {})).toThrow(/unregistered event type/);
});
