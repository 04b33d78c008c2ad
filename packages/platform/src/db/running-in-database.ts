/**
 * SQL (a scalar subquery, `xid8`) for the oldest transaction still running in the current
 * database as the statement's snapshot sees it, or the snapshot's xmax when none runs there. A
 * row whose transaction id is below it is committed (and visible to the statement) or was rolled
 * back: a reader in transaction-id order that stays below it is never overtaken by a transaction
 * still open.
 *
 * Why not `pg_snapshot_xmin`: that is the whole cluster's, so a long transaction in another
 * database (another service's bulk write, another test file) would hold back every reader. Only
 * transactions known to run in another database are passed over (their backend says so); one
 * whose backend is not found (finished since, or prepared) still counts, so the bound only errs
 * low, for one read.
 */
export const OLDEST_RUNNING_IN_DATABASE = `(select coalesce(min(running), pg_snapshot_xmax(pg_current_snapshot()))
     from pg_snapshot_xip(pg_current_snapshot()) as running
    where running::xid not in (
            select a.backend_xid from pg_stat_activity a
             where a.backend_xid is not null
               and a.datid <> (select d.oid from pg_database d where d.datname = current_database())))`;
