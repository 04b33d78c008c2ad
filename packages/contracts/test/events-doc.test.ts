import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventTypes } from '../src/events/registry.js';
import { renderEventsDoc } from '../src/events/doc.js';

const docPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'events.md');

test('docs/events.md is generated from the current registry (run `npm run docs:events`)', () => {
  expect(readFileSync(docPath, 'utf8')).toBe(renderEventsDoc());
});

test('every event type is registered once, with a resource kind, a schema version and a data schema', () => {
  const types = eventTypes.map((e) => e.type);
  expect(new Set(types).size).toBe(types.length);
  for (const e of eventTypes) {
    expect(e.type).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
    expect(e.resourceKind).not.toBe('');
    expect(Number.isInteger(e.schemaVersion) && e.schemaVersion >= 1).toBe(true);
    expect((e.data as { type?: string }).type).toBe('object');
  }
});
