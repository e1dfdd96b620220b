-- gen_events.sql - a synthetic recorded run for the report stage's scale test.
--
-- Usage (bench/gen_events.sh wraps it):
--   sqlite3 OUT.db < db/schema.sql
--   sqlite3 OUT.db -cmd '.parameter set @iters 1111111' '.read bench/gen_events.sql'
--
-- Models a loop of @iters iterations on two threads and two devices (0 and 1;
-- the host is 4), nine events each (so @iters = 1111111 gives ten million):
--   alloc a, to a, alloc b, to b, kernel, from a, delete b, delete a, update c
-- where a is one of 8 arrays (4 KiB .. 32 KiB) whose content repeats within
-- blocks of 16 iterations (duplicates), comes back unchanged one time in five
-- (round trips), b holds constant content (duplicates of other data), every
-- allocation repeats (repeated allocations), and c is updated after each
-- kernel.  Times are 1 us per iteration.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO run_raw (id, command, start_ns, end_ns, runtime, host_device, status, exit_status)
VALUES (1, '["gen_events"]', 0, @iters * 1000 + 1000, 'synthetic', 4, 'complete', 0);
INSERT INTO device_raw (num, type) VALUES (0, 'synthetic'), (1, 'synthetic');
INSERT INTO module_raw (id, path, base, low, high) VALUES (1, '/bench/gen_events', 4194304, 4194304, 8388608);

CREATE TEMP TABLE it AS
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @iters)
SELECT i,
       i * 9 + 1                              AS s,
       i * 1000                               AS t,
       i % 2                                  AS dev,
       1 + i % 2                              AS thr,
       268435456 + (i % 8) * 1048576          AS ha,      -- host a
       4096 * (1 + i % 8)                     AS na,
       140000000000000 + (i % 64) * 1048576   AS da,      -- device a
       536870912 + (i % 4) * 4096             AS hb,
       139000000000000 + (i % 16) * 4096      AS db,
       (i / 16) * 1000 + i % 8                AS content
  FROM n;

INSERT INTO target_raw (id, seq, thread, kind, device, begin_ns, dur_ns, codeptr)
SELECT i + 1, NULL, thr, 1, dev, t, 700, 4198400 FROM it;

INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes, begin_ns, dur_ns, hash, codeptr, target_id)
SELECT s,     thr, 1, 4, dev, ha, da, na,  t,       20, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 1, thr, 2, 4, dev, ha, da, na,  t + 30,  50, content, 4198400, i + 1 FROM it UNION ALL
SELECT s + 2, thr, 1, 4, dev, hb, db, 256, t + 90,  20, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 3, thr, 2, 4, dev, hb, db, 256, t + 120, 10, 42, 4198400, i + 1 FROM it UNION ALL
SELECT s + 5, thr, 3, dev, 4, da, ha, na,  t + 550, 50,
       CASE WHEN i % 5 = 0 THEN content ELSE content * 31 + i END, 4198400, i + 1 FROM it UNION ALL
SELECT s + 6, thr, 4, dev, -1, db, NULL, 0, t + 620, 10, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 7, thr, 4, dev, -1, da, NULL, 0, t + 640, 10, NULL, 4198400, i + 1 FROM it UNION ALL
SELECT s + 8, thr, 2, 4, dev, 805306368, 138000000000000, 64, t + 700, 10, i, 4202496, NULL FROM it;

INSERT INTO kernel_raw (seq, thread, target_id, device, teams, begin_ns, dur_ns)
SELECT s + 4, thr, i + 1, dev, 1, t + 200, 300 FROM it;

INSERT INTO delete_pair_raw (delete_seq, alloc_seq)
SELECT s + 6, s + 2 FROM it UNION ALL SELECT s + 7, s FROM it;
COMMIT;
INSERT OR REPLACE INTO meta (key, value) VALUES ('deletes_paired', '1');
