-- gen_events.sql - a synthetic recorded run for the report stage's scale test.
--
-- Usage (bench/gen_events.sh wraps it):
--   sqlite3 OUT.db < db/schema.sql
--   sqlite3 OUT.db -cmd '.parameter set @iters 1111111' '.read bench/gen_events.sql'
--   (optional: -cmd '.parameter set @threads 8' -cmd '.parameter set @devices 8')
--
-- Models a loop of @iters iterations on @threads threads and @devices devices
-- (2 and 2 when not set: devices 0 and 1; the host is 4, or @devices when
-- that is more), iteration i on thread 1 + i % @threads and device
-- i % @devices, nine events each (so @iters = 1111111 gives ten million):
--   alloc a, to a, alloc b, to b, kernel, from a, delete b, delete a, update c
-- where a is one of 8 arrays (4 KiB .. 32 KiB) whose content repeats within
-- blocks of 16 iterations (duplicates), comes back unchanged one time in five
-- (round trips), b holds constant content (duplicates of other data), every
-- allocation repeats (repeated allocations), and c is updated after each
-- kernel.  Times are 1 us per iteration.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
BEGIN;
CREATE TEMP TABLE p AS
SELECT coalesce(@threads, 2) AS threads, coalesce(@devices, 2) AS devices,
       max(4, coalesce(@devices, 2)) AS host;
INSERT INTO run_raw (id, command, start_ns, end_ns, runtime, host_device, status, exit_status)
SELECT 1, '["gen_events"]', 0, @iters * 1000 + 1000, 'synthetic', host, 'complete', 0 FROM p;
INSERT INTO device_raw (num, type)
WITH RECURSIVE d(num) AS (SELECT 0 UNION ALL SELECT num + 1 FROM d, p WHERE num + 1 < p.devices)
SELECT num, 'synthetic' FROM d;
INSERT INTO module_raw (id, path, base, low, high) VALUES (1, '/bench/gen_events', 4194304, 4194304, 8388608);

CREATE TEMP TABLE it AS
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @iters)
SELECT i,
       i * 9 + 1                              AS s,
       i * 1000                               AS t,
       i % p.devices                          AS dev,
       1 + i % p.threads                      AS thr,
       p.host                                 AS host,
       268435456 + (i % 8) * 1048576          AS ha,      -- host a
       4096 * (1 + i % 8)                     AS na,
       140000000000000 + (i % 64) * 1048576   AS da,      -- device a
       536870912 + (i % 4) * 4096             AS hb,
       139000000000000 + (i % 16) * 4096      AS db,
       (i / 16) * 1000 + i % 8                AS content
  FROM n, p;

INSERT INTO target_raw (id, seq, thread, kind, device, begin_ns, dur_ns, codeptr)
SELECT i + 1, NULL, thr, 1, dev, t, 700, 4198400 FROM it;

INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes, begin_ns, dur_ns, hash, codeptr, target_id)
SELECT s,     thr, 1, host, dev, ha, da, na,  t,       20, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 1, thr, 2, host, dev, ha, da, na,  t + 30,  50, content, 4198400, i + 1 FROM it UNION ALL
SELECT s + 2, thr, 1, host, dev, hb, db, 256, t + 90,  20, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 3, thr, 2, host, dev, hb, db, 256, t + 120, 10, 42, 4198400, i + 1 FROM it UNION ALL
SELECT s + 5, thr, 3, dev, host, da, ha, na,  t + 550, 50,
       CASE WHEN i % 5 = 0 THEN content ELSE content * 31 + i END, 4198400, i + 1 FROM it UNION ALL
SELECT s + 6, thr, 4, dev, -1, db, NULL, 0, t + 620, 10, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 7, thr, 4, dev, -1, da, NULL, 0, t + 640, 10, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 8, thr, 2, host, dev, 805306368, 138000000000000, 64, t + 700, 10, i, 4202496, NULL FROM it;

INSERT INTO kernel_raw (seq, thread, target_id, device, teams, begin_ns, dur_ns)
SELECT s + 4, thr, i + 1, dev, 1, t + 200, 300 FROM it;

INSERT INTO delete_pair_raw (delete_seq, alloc_seq)
SELECT s + 6, s + 2 FROM it UNION ALL SELECT s + 7, s FROM it;
COMMIT;
INSERT OR REPLACE INTO meta (key, value) VALUES ('deletes_paired', '1');
