-- mapprof database schema: the single source of truth.
--
-- Tables whose names end in _raw are storage and may change between versions.
-- The stable interface for people writing SQL is the set of views at the end of
-- this file (documented in docs/database.md).  Times in the views are
-- nanoseconds since the collector started (CLOCK_MONOTONIC, run.start_ns is the
-- origin); storage keeps them relative to that origin and as durations because
-- small integers take fewer bytes on disk.
--
-- The version lives in two places: PRAGMA user_version and meta.schema_version.

PRAGMA user_version = 1;

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT
) WITHOUT ROWID;

INSERT INTO meta (key, value) VALUES ('format', 'mapprof'), ('schema_version', '1');

-- One row.  Written partly by the collector (inside the program) and partly by
-- 'mapprof record' after the program ended (exit status, end reason).
CREATE TABLE run_raw (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    command       TEXT,     -- JSON array of argv
    cwd           TEXT,
    pid           INTEGER,
    host          TEXT,
    start_time    TEXT,     -- wall clock, ISO 8601 UTC
    start_ns      INTEGER,  -- CLOCK_MONOTONIC when the collector started
    end_ns        INTEGER,  -- relative to start_ns: when the collector finished
    runtime       TEXT,     -- OpenMP runtime version string
    host_device   INTEGER,  -- device number the runtime uses for the host
    status        TEXT,     -- 'recording', 'complete', or 'no-target-callbacks'
    status_detail TEXT,     -- why, when status is not 'complete'
    exit_status   INTEGER,  -- program exit code, or 128+N if killed by signal N
    exit_signal   INTEGER,  -- N when killed by a signal
    events_lost   INTEGER DEFAULT 0,
    collector     TEXT      -- collector version
);

CREATE TABLE env_raw (
    name  TEXT,
    value TEXT
);

CREATE TABLE device_raw (
    num      INTEGER PRIMARY KEY,
    type     TEXT,
    init_ns  INTEGER,
    fini_ns  INTEGER
);

-- Every ELF object mapped into the process (executable, shared libraries,
-- including those loaded later with dlopen), so that code addresses can be
-- symbolized offline.
CREATE TABLE module_raw (
    id        INTEGER PRIMARY KEY,
    path      TEXT,
    base      INTEGER,  -- load bias (dlpi_addr)
    low       INTEGER,  -- lowest mapped address of the object
    high      INTEGER,  -- one past the highest mapped address
    build_id  TEXT,     -- lower-case hex or NULL
    seen_ns   INTEGER,
    UNIQUE (path, base)
);

CREATE TABLE thread_raw (
    id   INTEGER PRIMARY KEY,  -- small number assigned by the collector
    tid  INTEGER               -- kernel thread id
);

-- Offload images the runtime loaded onto devices (ompt_callback_device_load).
CREATE TABLE image_raw (
    device     INTEGER,
    file       TEXT,
    host_addr  INTEGER,
    bytes      INTEGER,
    ns         INTEGER
);

-- Data operations.  kind is OMPT's ompt_target_data_op_t value.
-- begin_ns is relative to run.start_ns; dur_ns = end - begin.
-- hash is XXH3-64 of the host side of a transfer (NULL when neither side is
-- host memory, and for non-transfers).
CREATE TABLE data_op_raw (
    seq        INTEGER PRIMARY KEY,
    thread     INTEGER,
    kind       INTEGER,
    src_dev    INTEGER,
    dst_dev    INTEGER,
    src_addr   INTEGER,
    dst_addr   INTEGER,
    bytes      INTEGER,
    begin_ns   INTEGER,
    dur_ns     INTEGER,
    hash       INTEGER,
    codeptr    INTEGER,
    target_id  INTEGER,
    map_index  INTEGER   -- index of the map clause entry this op moved (see source_raw), or NULL
);

-- Kernel submissions (ompt_callback_target_submit_emi).
CREATE TABLE kernel_raw (
    seq        INTEGER PRIMARY KEY,
    thread     INTEGER,
    target_id  INTEGER,
    device     INTEGER,
    teams      INTEGER,
    begin_ns   INTEGER,
    dur_ns     INTEGER
);

-- Target constructs (ompt_callback_target_emi).  kind is ompt_target_t.
CREATE TABLE target_raw (
    id         INTEGER PRIMARY KEY,
    seq        INTEGER,
    thread     INTEGER,
    kind       INTEGER,
    device     INTEGER,
    begin_ns   INTEGER,
    dur_ns     INTEGER,
    codeptr    INTEGER
);

-- Source records clang passes to the offload entry points when a program is
-- built with -g (captured by interposing __tgt_target_kernel and the
-- __tgt_target_data_*_mapper functions).  One row per call site.
--   psource:   ';file;function;line;column;;'
--   map_names: JSON array, one ';name;file;line;column;;' string (or null) per
--              map entry; data_op_raw.map_index indexes it.
CREATE TABLE source_raw (
    codeptr    INTEGER PRIMARY KEY,
    entry      TEXT,      -- which entry point was called
    psource    TEXT,
    map_names  TEXT
);

-- Written by 'mapprof record' after the run: each delete paired with the
-- allocation it frees (the runtime reports deletes by device address only).
CREATE TABLE delete_pair_raw (
    delete_seq  INTEGER PRIMARY KEY,
    alloc_seq   INTEGER
);

CREATE TABLE op_name (
    kind   INTEGER PRIMARY KEY,
    name   TEXT,
    async  INTEGER
);
INSERT INTO op_name VALUES
    (1, 'alloc', 0), (2, 'to_device', 0), (3, 'from_device', 0),
    (4, 'delete', 0), (5, 'associate', 0), (6, 'disassociate', 0),
    (17, 'alloc', 1), (18, 'to_device', 1), (19, 'from_device', 1),
    (20, 'delete', 1);

CREATE TABLE target_kind_name (
    kind  INTEGER PRIMARY KEY,
    name  TEXT
);
INSERT INTO target_kind_name VALUES
    (1, 'target'), (2, 'target_enter_data'), (3, 'target_exit_data'),
    (4, 'target_update'), (9, 'target_nowait'), (10, 'target_enter_data_nowait'),
    (11, 'target_exit_data_nowait'), (12, 'target_update_nowait');

-- ---------------------------------------------------------------------------
-- Views: the stable interface.
-- ---------------------------------------------------------------------------

-- One row per finished data operation.  For a delete, bytes is the size of the
-- allocation it frees (0 when no allocation was recorded for that address).
CREATE VIEW data_ops AS
SELECT d.seq                                   AS seq,
       d.thread                                AS thread,
       COALESCE(n.name, 'unknown')             AS op,
       d.src_dev                               AS src_device,
       d.dst_dev                               AS dest_device,
       d.src_addr                              AS src_addr,
       d.dst_addr                              AS dest_addr,
       CASE WHEN d.kind IN (4, 20)
            THEN COALESCE((SELECT a.bytes FROM delete_pair_raw p
                             JOIN data_op_raw a ON a.seq = p.alloc_seq
                            WHERE p.delete_seq = d.seq), d.bytes)
            ELSE d.bytes END                   AS bytes,
       d.begin_ns                              AS begin_ns,
       d.begin_ns + d.dur_ns                   AS end_ns,
       CASE WHEN d.hash IS NULL THEN NULL
            ELSE printf('%016x', d.hash) END   AS hash,
       d.codeptr                               AS codeptr,
       d.target_id                             AS target_id
  FROM data_op_raw d
  LEFT JOIN op_name n ON n.kind = d.kind;

CREATE VIEW kernels AS
SELECT seq, device, begin_ns, begin_ns + dur_ns AS end_ns,
       (SELECT t.codeptr FROM target_raw t WHERE t.id = k.target_id) AS codeptr,
       target_id, thread, teams
  FROM kernel_raw k;

CREATE VIEW targets AS
SELECT t.id AS target_id, t.seq, t.thread,
       COALESCE(n.name, 'unknown') AS kind,
       t.device, t.begin_ns, t.begin_ns + t.dur_ns AS end_ns, t.codeptr
  FROM target_raw t
  LEFT JOIN target_kind_name n ON n.kind = t.kind;

-- Allocations with their lifetime: delete_seq/end_ns are NULL when the
-- program ended with the data still mapped.
CREATE VIEW allocations AS
SELECT a.seq                AS alloc_seq,
       p.delete_seq         AS delete_seq,
       a.dst_dev            AS device,
       a.dst_addr           AS device_addr,
       a.src_addr           AS host_addr,
       a.bytes              AS bytes,
       a.begin_ns           AS begin_ns,
       d.begin_ns + d.dur_ns AS end_ns,
       a.codeptr            AS codeptr,
       d.codeptr            AS delete_codeptr
  FROM data_op_raw a
  LEFT JOIN delete_pair_raw p ON p.alloc_seq = a.seq
  LEFT JOIN data_op_raw d ON d.seq = p.delete_seq
 WHERE a.kind IN (1, 17);

CREATE VIEW devices AS
SELECT d.num AS device, d.type, d.init_ns, d.fini_ns,
       (SELECT COUNT(*) FROM kernel_raw k WHERE k.device = d.num) AS kernels,
       (SELECT COUNT(*) FROM data_op_raw o
         WHERE o.dst_dev = d.num OR o.src_dev = d.num) AS data_ops
  FROM device_raw d;

CREATE VIEW modules AS
SELECT id, path, base, low, high, build_id FROM module_raw;

CREATE VIEW threads AS
SELECT id AS thread, tid FROM thread_raw;

CREATE VIEW run AS
SELECT command, cwd, pid, host, start_time, start_ns, end_ns AS duration_ns, runtime,
       host_device, status, status_detail, exit_status, exit_signal, events_lost,
       collector
  FROM run_raw;

CREATE VIEW environment AS
SELECT name, value FROM env_raw;

-- ---------------------------------------------------------------------------
-- Written by 'mapprof report' (replaced on every run of it).
-- ---------------------------------------------------------------------------

-- BEGIN report: attribution tables

-- END report: attribution tables

-- BEGIN report: findings tables

-- END report: findings tables
