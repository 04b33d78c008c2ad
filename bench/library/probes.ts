/**
 * The lag benchmark's probes: when each reaches `library.tracks`, and where its lag goes.
 *
 * Where a probe's projection lag goes, stage by stage, from the outbox rows the write left behind
 * (read after the writes, so no query of this adds to the load measured). Every time is the one
 * clock of this machine: the load generator's (`performance.timeOrigin` + `now()`) and Postgres's `now()` (a
 * transaction's start) and `published_at`.
 *
 *   toCatalog      request sent → the catalog's write transaction starts (HTTP, gateway, bus)
 *   toStream       → the relay has published the event and marked its row (commit, NOTIFY, relay
 *                  round, JetStream's acknowledgement, the marking statement)
 *   toProjection   → the library's projection transaction for the entity starts (delivery, a
 *                  lane's wait for a slot, the entity's state read from the catalog over the bus);
 *                  the relay marks a row after JetStream acknowledged it, so a transaction that
 *                  starts in between counts its time in toStream (this stage then reads 0)
 *   toVisible      → the title is in `library.tracks` as the probe's NOTIFY shows it (the
 *                  transaction's statements and commit)
 */
import type pg from 'pg';
import { percentiles } from '../support/percentiles.js';

/** One probe write as the load generator saw it (wall-clock ms). */
export interface ProbeTimes {
  entityId: string;
  sent: number;
  seen: number;
}

const LAG_STAGES = ['toCatalog', 'toStream', 'toProjection', 'toVisible'] as const;
type Stage = (typeof LAG_STAGES)[number];

interface OutboxTimes {
  entityId: string;
  occurred: number;
  published: number | null;
}

/** Each outbox row of `table` about the entities, by entity in commit order (ms since the epoch). */
async function outboxTimes(owner: pg.Client, table: string, types: string, ids: string[]): Promise<Map<string, OutboxTimes[]>> {
  const { rows } = await owner.query<{ entity_id: string; occurred: string; published: string | null }>(
    `select resource_id as entity_id, extract(epoch from occurred_at) * 1000 as occurred,
            extract(epoch from published_at) * 1000 as published
       from ${table} where resource_id = any($1::uuid[]) and type like $2 order by seq`,
    [ids, types],
  );
  const byEntity = new Map<string, OutboxTimes[]>();
  for (const row of rows) {
    const times = {
      entityId: row.entity_id,
      occurred: Number(row.occurred),
      published: row.published === null ? null : Number(row.published),
    };
    const list = byEntity.get(row.entity_id);
    if (list) list.push(times);
    else byEntity.set(row.entity_id, [times]);
  }
  return byEntity;
}

/**
 * The stages of each probe: its catalog event is the entity's first `entity.updated` that
 * started after the probe was sent, its projection the entity's first `track.*` event that
 * started after that. A probe whose rows are not found (none published) is left out; the
 * count says how many were matched.
 */
export async function lagStages(owner: pg.Client, probes: readonly ProbeTimes[]): Promise<Record<Stage, ReturnType<typeof percentiles>>> {
  const ids = [...new Set(probes.map((p) => p.entityId))];
  const catalog = await outboxTimes(owner, 'catalog.outbox', 'entity.updated', ids);
  const library = await outboxTimes(owner, 'library.outbox', 'track.%', ids);
  const stages: Record<Stage, number[]> = { toCatalog: [], toStream: [], toProjection: [], toVisible: [] };
  for (const probe of probes) {
    const written = catalog.get(probe.entityId)?.find((row) => row.occurred >= probe.sent - 1);
    if (!written || written.published === null) continue;
    const projected = library.get(probe.entityId)?.find((row) => row.occurred >= written.occurred);
    if (!projected) continue;
    stages.toCatalog.push(written.occurred - probe.sent);
    stages.toStream.push(written.published - written.occurred);
    stages.toProjection.push(Math.max(0, projected.occurred - written.published));
    stages.toVisible.push(probe.seen - Math.max(projected.occurred, written.published));
  }
  return Object.fromEntries(LAG_STAGES.map((stage) => [stage, percentiles(stages[stage])])) as Record<
    Stage,
    ReturnType<typeof percentiles>
  >;
}

/**
 * Sees a probe's title reach `library.tracks` the moment its transaction commits, without polling
 * (a poller would add its own queries to the load it measures): a trigger that only the benchmark's
 * database gets notifies `bench_probe` (delivered at commit) when a track is written with a probe's
 * title. `seen(id, n)` resolves once the track shows the title of probe `n` or of a later probe
 * (which the entity got after it).
 */
export async function probeWatcher(owner: pg.Client, listener: pg.Client) {
  await owner.query(`
    create function library.bench_probe_seen() returns trigger language plpgsql as $$
    begin
      perform pg_notify('bench_probe', new.entity_id::text || ' ' || (new.summary->>'title'));
      return null;
    end $$;
    create trigger bench_probe_seen after insert or update on library.tracks for each row
      when ((new.summary->>'title') like 'Probe %') execute function library.bench_probe_seen();`);
  const shown = new Map<string, number>();
  const waiting = new Map<string, Array<{ n: number; resolve: () => void }>>();
  const settle = (id: string) => {
    const list = waiting.get(id);
    if (!list) return;
    const remaining = list.filter((w) => ((shown.get(id) ?? -1) >= w.n ? (w.resolve(), false) : true));
    if (remaining.length === 0) waiting.delete(id);
    else waiting.set(id, remaining);
  };
  listener.on('notification', (message) => {
    const [id, , n] = (message.payload ?? '').split(' ');
    if (!id || n === undefined) return;
    shown.set(id, Math.max(shown.get(id) ?? -1, Number(n)));
    settle(id);
  });
  await listener.query('listen bench_probe');
  return {
    seen: (id: string, n: number) =>
      new Promise<void>((resolve) => {
        waiting.set(id, [...(waiting.get(id) ?? []), { n, resolve }]);
        settle(id);
      }),
  };
}
