import type { Entity, VersionList } from '@catalog/contracts';
import { addUploadVersion, startHarness, type CatalogHarness } from './support.js';

let h: CatalogHarness;

/**
 * Writes of one entity's versions take turns (its row lock), so the last of 50 sent at once is
 * answered after 49 turns: on a loaded machine that is well past one call's usual 10 s.
 */
const TURNS_MS = 60_000;

beforeAll(async () => {
  h = await startHarness('catvconc', { withAssets: true, callTimeoutMs: TURNS_MS });
});

afterAll(async () => {
  await h?.stop();
});

const KINDS = [
  { kind: 'AUDIO', filename: 'a.wav', contentType: 'audio/wav', versionType: 'radio_edit' },
  { kind: 'ARTWORK', filename: 'c.jpg', contentType: 'image/jpeg', versionType: 'cover_art' },
  { kind: 'VIDEO', filename: 'v.mp4', contentType: 'video/mp4', versionType: 'video_clip' },
] as const;

async function primaryRows(entityId: string): Promise<Array<{ kind: string; count: number }>> {
  const { rows } = await h.sql.query<{ kind: string; count: number }>(
    'select kind, count(*)::int as count from catalog.versions where entity_id = $1 and is_primary group by kind order by kind',
    [entityId],
  );
  return rows;
}

describe('exactly one primary per kind under concurrent writes', () => {
  test(
    '50 concurrent isPrimary creations on one entity: all 201, exactly one primary per kind',
    async () => {
      const a = h.tenant();
      const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Race' } });
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const k = KINDS[i % KINDS.length]!;
          return addUploadVersion(a, entity.id, { ...k, label: `take ${i}`, isPrimary: true });
        }),
      );
      const failures = replies.filter((r) => !r.ok);
      expect(failures).toEqual([]);
      expect(replies.every((r) => r.ok && r.status === 201)).toBe(true);

      const versions = (await a.ok<VersionList>('listVersions', { params: { id: entity.id } })).versions;
      expect(versions).toHaveLength(50);
      expect(await primaryRows(entity.id)).toEqual([
        { kind: 'ARTWORK', count: 1 },
        { kind: 'AUDIO', count: 1 },
        { kind: 'VIDEO', count: 1 },
      ]);

      // The writes took turns: every creation made its version primary, so the chain of
      // primary_changed events of each kind is unbroken and ends at the primary the listing shows.
      const changes = await h.outbox({ resourceId: entity.id, type: 'version.primary_changed' });
      expect(changes).toHaveLength(50);
      for (const { kind } of KINDS) {
        const chain = changes.filter((e) => e.data.kind === kind).map((e) => e.data);
        let previous: string | null = null;
        for (const link of chain) {
          expect(link.previousVersionId).toBe(previous);
          previous = link.versionId as string | null;
        }
        expect(versions.find((v) => v.kind === kind && v.isPrimary)!.id).toBe(previous);
      }
    },
    2 * TURNS_MS,
  );

  test(
    'concurrent promotions, creations and deletions keep exactly one primary per kind, without errors',
    async () => {
      const a = h.tenant();
      const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Mixed race' } });
      const seeded: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const reply = await addUploadVersion(a, entity.id, { label: `seed ${i}` });
        if (!reply.ok) throw new Error(JSON.stringify(reply.error));
        seeded.push((reply.body as { id: string }).id);
      }
      const operations = [
        ...seeded
          .slice(0, 5)
          .map((versionId) => a.call('updateVersion', { params: { id: entity.id, versionId }, body: { isPrimary: true } })),
        ...seeded.slice(5, 8).map((versionId) => a.call('deleteVersion', { params: { id: entity.id, versionId } })),
        ...Array.from({ length: 10 }, (_, i) => addUploadVersion(a, entity.id, { label: `new ${i}`, isPrimary: i % 2 === 0 })),
      ];
      const replies = await Promise.all(operations);
      expect(replies.filter((r) => !r.ok)).toEqual([]);
      expect(await primaryRows(entity.id)).toEqual([{ kind: 'AUDIO', count: 1 }]);
      expect((await a.ok<VersionList>('listVersions', { params: { id: entity.id } })).versions).toHaveLength(17);
    },
    2 * TURNS_MS,
  );

  test('the database itself refuses a second primary of a kind (partial unique index), whatever the code does', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Constraint' } });
    const one = await addUploadVersion(a, entity.id, { label: 'one' });
    const two = await addUploadVersion(a, entity.id, { label: 'two' });
    if (!one.ok || !two.ok) throw new Error('setup failed');
    await expect(
      h.sql.query('update catalog.versions set is_primary = true where id = $1', [(two.body as { id: string }).id]),
    ).rejects.toMatchObject({
      code: '23505',
      constraint: 'versions_one_primary_per_kind',
    });
  });
});
