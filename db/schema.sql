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

PRAGMA user_version = 2;

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT
) WITHOUT ROWID;

INSERT INTO meta (key, value) VALUES ('format', 'mapprof'), ('schema_version', '2');

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
    collector     TEXT,     -- collector version
    wall_ns       INTEGER,  -- the program's wall time as 'mapprof record' saw it
                            -- (start to exit), NULL when recorded by hand
    peak_rss_kb   INTEGER   -- the program's peak resident memory (KiB, from wait4),
                            -- NULL when recorded by hand
);

-- One row: the process this database recorded (docs/usage.md, "Several
-- processes").  A recorded command may run many processes (a forked child, a
-- program exec'd by a script, the ranks of an MPI job): each that offloads
-- gets a database of its own, and this row says which one it is.  Written
-- from the collector's PROCESS frame, then 'mapprof record' adds how it ended.
CREATE TABLE process_raw (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    pid          INTEGER,
    ppid         INTEGER,
    rank         INTEGER,  -- MPI rank from the launcher's environment, NULL when none
    rank_var     TEXT,     -- the variable it came from (OMPI_COMM_WORLD_RANK, ...)
    started      TEXT,     -- 'record' (took the buffers of 'mapprof record'),
                           -- 'exec' (a program started later), 'fork' (a forked child)
    ended        TEXT,     -- 'exited', 'killed', 'exec' (replaced its program),
                           -- 'unknown', see docs/database.md
    exit_status  INTEGER,  -- when known: exit code, or 128+N if killed by signal N
    exit_signal  INTEGER,
    recording    TEXT      -- the same for every process of one 'mapprof record'
);

-- Counters the run reports about itself, one row per name (docs/database.md,
-- "stats"): the collector's (hash_bytes, hash_reused_bytes, ...) at the end of
-- the run, and 'mapprof record''s (program_user_ns, program_sys_ns from wait4).
CREATE TABLE stats_raw (
    name  TEXT PRIMARY KEY,
    value INTEGER
) WITHOUT ROWID;

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
-- host memory, for non-transfers, and where a late attached pointer's fix
-- left it unknown: hash_fix_raw).
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
    map_index  INTEGER   -- index of the map clause entry this op moved (see source_raw), or NULL;
                         -- -2 - i: the 8 bytes by which the runtime attached entry i's pointer
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

-- What 'record --check' found while the program ran (docs/checks.md), one row
-- per occurrence: a copy back of bytes the device never wrote
-- ('never_written'), host writes a copy back undid ('lost_host_write'), host
-- writes racing a nowait copy ('race'); or a check that could not run on a
-- device ('skipped', note says why).  Empty when recorded without --check.
-- IF NOT EXISTS: older databases lack it and are still read.
CREATE TABLE IF NOT EXISTS check_raw (
    id          INTEGER PRIMARY KEY,
    kind        TEXT,
    seq         INTEGER,  -- the data operation (data_op_raw.seq); -1 for 'skipped'
    device      INTEGER,
    host_addr   INTEGER,  -- host start of that operation's range
    first_byte  INTEGER,  -- the bytes found: [first_byte, end_byte) of that range
    end_byte    INTEGER,
    bytes       INTEGER,  -- bytes found in that range (not every byte between may be)
    note        TEXT
);

-- Pointer slots the collector learned late (collector/attach.h): the hashes of
-- the transfers of host data holding 'slot' on 'device', data ops from_seq <
-- seq < to_seq, were taken with the slot's bytes as they were.  Applied to
-- data_op_raw.hash, then emptied, when the database is finished: a hash equal
-- to old_hash becomes new_hash (the same bytes, the slot masked), one equal
-- to new_hash stays; any other becomes NULL (not known); known = 0: all
-- become NULL.
-- IF NOT EXISTS: older databases lack it and are still read.
CREATE TABLE IF NOT EXISTS hash_fix_raw (
    id          INTEGER PRIMARY KEY,
    device      INTEGER,
    host_addr   INTEGER,  -- the device buffer's host data: [host_addr, host_addr + bytes)
    bytes       INTEGER,
    slot        INTEGER,  -- the pointer's host address (8 bytes)
    from_seq    INTEGER,
    to_seq      INTEGER,
    known       INTEGER,
    old_hash    INTEGER,
    new_hash    INTEGER
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
    (11, 'target_exit_data_nowait'), (12, 'target_update_nowait'),
    (33, 'acc_compute_construct'), (34, 'acc_enter_data'), (35, 'acc_exit_data'),
    (36, 'acc_update');

-- OpenACC events (the OpenACC Profiling Interface: collector/openacc.c,
-- docs/openacc.md), one row per event or start/end pair, with what the
-- runtime said of it.  seq is that of the row the event also made in
-- target_raw (constructs), data_op_raw (alloc, free, create, delete,
-- enqueue_upload, enqueue_download) or kernel_raw (enqueue_launch); the
-- others (device_init, device_shutdown, wait, runtime_shutdown) are here
-- only.  NULL: the runtime did not fill the field (past valid_bytes).
-- IF NOT EXISTS: databases recorded before it lack it and are still read.
CREATE TABLE IF NOT EXISTS acc_event_raw (
    seq               INTEGER PRIMARY KEY,
    event             TEXT,     -- 'compute_construct', 'enter_data', 'enqueue_upload', ...
    parent_construct  TEXT,     -- 'parallel', 'data', 'enter_data', 'update', ...
    implicit          INTEGER,
    device_type       TEXT,     -- 'host', 'nvidia', 'radeon', 'default', ...
    device_number     INTEGER,
    async             INTEGER,  -- -2: acc_async_sync, -1: acc_async_noval
    async_queue       INTEGER,
    valid_bytes       INTEGER,  -- of the event info: 24 is the short form (no bytes, no pointers)
    begin_ns          INTEGER,  -- relative to run.start_ns, when the (start) callback ran
    end_ns            INTEGER,
    detail            TEXT      -- JSON: src_file, func_name, line_no, kernel_name, num_gangs,
                                -- num_workers, vector_length, var_name, where given
);

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
       collector, wall_ns, peak_rss_kb
  FROM run_raw;

CREATE VIEW process AS
SELECT p.pid, p.ppid, p.rank, p.rank_var, p.started, p.ended, p.exit_status, p.exit_signal,
       p.recording, r.command AS argv
  FROM process_raw p LEFT JOIN run_raw r ON r.id = 1;

CREATE VIEW stats AS
SELECT name, value FROM stats_raw;

CREATE VIEW environment AS
SELECT name, value FROM env_raw;

-- Written by 'mapprof record' once the program ended: the size and content
-- hash of every source file a report may quote (its locations' files and
-- their map clauses' declaration files, found as report finds them:
-- docs/attribution.md, "When the source changed"), so that a report made
-- after an edit says so instead of quoting other lines.  Empty in a
-- database recorded before it existed ('report' then checks nothing) or by
-- 'recover'.  IF NOT EXISTS: older databases lack it and are still read.
CREATE TABLE IF NOT EXISTS source_file_raw (
    path   TEXT PRIMARY KEY,  -- where 'record' found it (as location.source_path)
    bytes  INTEGER,           -- its size
    hash   TEXT               -- XXH3-64 of its bytes, 16 lower-case hex digits
) WITHOUT ROWID;

-- ---------------------------------------------------------------------------
-- Written by 'mapprof report' (replaced on every run of it).
-- ---------------------------------------------------------------------------

-- BEGIN report: attribution tables

-- Where the recorded code pointers are in the source, which variable each
-- data operation moved, and the source lines around them (docs/attribution.md).
-- Replaced as a whole by every 'mapprof report'.  Each statement here must be
-- safe to run again: locations_ensure_tables() runs this section on databases
-- recorded before it existed.
--
-- origin says where an attribution came from:
--   'ompt-ident'  the source record clang passed to the offload entry point
--                 (built with -g): the directive's exact line, the map clause's
--                 variable text
--   'dwarf'       the module's line table (libdw)
--   'symbol'      only the ELF symbol table: function or global object name
--   'none'        nothing: module + offset, or the raw address

-- One row per distinct code pointer of data_op_raw and target_raw.
CREATE TABLE IF NOT EXISTS location (
    codeptr      INTEGER PRIMARY KEY,  -- return address (lines are for codeptr - 1)
    module       TEXT,     -- recorded path of the module holding it, NULL if none
    offset       INTEGER,  -- codeptr - load bias: the address inside the ELF file
    function     TEXT,
    file         TEXT,     -- as the compiler recorded it: may be relative
    line         INTEGER,  -- 0 when unknown
    column       INTEGER,  -- 0 when unknown
    origin       TEXT,     -- see above
    inline_chain TEXT,     -- JSON array of callers when the code was inlined,
                           -- innermost first: [{"function","file","line","column"}]
    comp_dir     TEXT,     -- DWARF compilation directory (for a relative file)
    source_path  TEXT,     -- where the file was found when the report was made
    note         TEXT      -- why it is not exact and what to do; NULL when exact
);

-- Source lines around each location's line and each variable's declaration,
-- so the report reads the same on a machine without the sources.
-- Join: snippet.file = location.file AND snippet.line = location.line.
CREATE TABLE IF NOT EXISTS snippet (
    file        TEXT,      -- location.file or variable.decl_file, as recorded
    line        INTEGER,   -- the line of interest
    first_line  INTEGER,   -- number of the first line of text
    text        TEXT,      -- lines first_line.. joined by '\n' (no trailing newline)
    PRIMARY KEY (file, line)
) WITHOUT ROWID;

-- The source files this report found changed since the recording
-- (source_file_raw: another size or hash): their lines are not quoted and no
-- plan edits them.  Join: source_changed.path = location.source_path.
CREATE TABLE IF NOT EXISTS source_changed (
    path  TEXT PRIMARY KEY,   -- location.source_path
    note  TEXT                -- what differs, in words
) WITHOUT ROWID;

-- What data operations moved: one row per variable key, never per operation.
-- Variables belong to a call site's map entry (codeptr, map_index), named by
-- its source record, or else to a host address (ELF object symbol, or the
-- address itself).  data_op_sources resolves each operation's key when read.
CREATE TABLE IF NOT EXISTS variable (
    id           INTEGER PRIMARY KEY,
    codeptr      INTEGER,  -- map entry key (NULL for a host address key)
    map_index    INTEGER,
    host_addr    INTEGER,  -- host address key (NULL for a map entry key)
    name         TEXT,     -- 'a[0:N]' (map clause), 'table' / 'table+0x40'
                           -- (ELF object symbol) or '0x7ffd1230' (address)
    decl_file    TEXT,     -- declaration (map clause names only)
    decl_line    INTEGER,
    decl_column  INTEGER,
    origin       TEXT      -- 'ompt-ident', 'symbol' or 'none'
);
CREATE UNIQUE INDEX IF NOT EXISTS variable_map_entry ON variable (codeptr, map_index);
CREATE UNIQUE INDEX IF NOT EXISTS variable_host_addr ON variable (host_addr);

-- One row per data operation: where in the source, and which variable.
-- The variable is that of the operation's map entry when it has a name (a
-- delete without a map index takes its allocation's entry), else that of its
-- host address: the source of an alloc, to-device or (dis)associate, the
-- destination of a from-device, the allocation's source for a delete.
CREATE VIEW IF NOT EXISTS data_op_sources AS
SELECT d.seq                        AS seq,
       COALESCE(n.name, 'unknown')  AS op,
       l.file                       AS file,
       l.line                       AS line,
       l.column                     AS column,
       l.function                   AS function,
       v.name                       AS variable,
       l.origin                     AS origin,
       v.origin                     AS variable_origin,
       v.decl_file                  AS decl_file,
       v.decl_line                  AS decl_line,
       l.module                     AS module,
       l.offset                     AS offset,
       d.codeptr                    AS codeptr
  FROM data_op_raw d
  LEFT JOIN op_name n ON n.kind = d.kind
  LEFT JOIN location l ON l.codeptr = d.codeptr
  LEFT JOIN delete_pair_raw p ON d.kind IN (4, 20) AND p.delete_seq = d.seq
  LEFT JOIN data_op_raw a ON a.seq = p.alloc_seq
  LEFT JOIN variable v ON v.id = COALESCE(
       (SELECT k.id FROM variable k
         WHERE k.codeptr = CASE WHEN d.map_index IS NULL AND a.seq IS NOT NULL
                                THEN a.codeptr ELSE d.codeptr END
           AND k.map_index = CASE WHEN d.map_index IS NULL AND a.seq IS NOT NULL
                                  THEN a.map_index ELSE d.map_index END),
       (SELECT k.id FROM variable k
         WHERE k.host_addr = CASE WHEN d.kind IN (1, 17, 2, 18, 5, 6) THEN d.src_addr
                                  WHEN d.kind IN (3, 19) THEN d.dst_addr
                                  WHEN d.kind IN (4, 20) THEN a.src_addr END));

-- One row per target construct (target, enter/exit data, update).
CREATE VIEW IF NOT EXISTS target_sources AS
SELECT t.id                         AS target_id,
       COALESCE(k.name, 'unknown')  AS kind,
       l.file                       AS file,
       l.line                       AS line,
       l.column                     AS column,
       l.function                   AS function,
       l.origin                     AS origin,
       l.module                     AS module,
       l.offset                     AS offset,
       t.codeptr                    AS codeptr
  FROM target_raw t
  LEFT JOIN target_kind_name k ON k.kind = t.kind
  LEFT JOIN location l ON l.codeptr = t.codeptr;

-- END report: attribution tables

-- BEGIN report: findings tables
-- The findings of the last 'mapprof report' (docs/database-findings.md).
-- IF NOT EXISTS: 'report' runs this block on databases recorded before.
CREATE TABLE IF NOT EXISTS finding_raw (
    id           INTEGER PRIMARY KEY,  -- 1.. in report order
    kind         TEXT,     -- duplicate_transfer, round_trip, repeated_alloc, ...
    flavour      TEXT,     -- same_data, same_content, host_device_host, ... or NULL
    fingerprint  TEXT,     -- stable across runs of the same program
    occurrences  INTEGER,
    bytes        INTEGER,  -- moved (both legs of a round trip) or allocated
    savings_ns   INTEGER,  -- union of the intervals of its operations
    devices      TEXT,     -- JSON array of device numbers
    locations    TEXT,     -- JSON array of code pointers (integers)
    origins      TEXT,     -- duplicates: JSON array of code pointers of first receipts
    data_addr    INTEGER,  -- host address of the data (NULL when none)
    data_bytes   INTEGER,
    first_seq    INTEGER
);

-- The operations that fixing a finding would remove.
CREATE TABLE IF NOT EXISTS finding_event_raw (
    finding     INTEGER,   -- finding_raw.id
    occurrence  INTEGER,   -- 0.. within the finding
    role        TEXT,      -- transfer, send, return, alloc, delete
    seq         INTEGER    -- data_op_raw.seq
);

-- One row per kind and one 'all' row (savings counting each operation once).
CREATE TABLE IF NOT EXISTS finding_summary_raw (
    kind               TEXT PRIMARY KEY,
    findings           INTEGER,
    occurrences        INTEGER,
    bytes              INTEGER,
    savings_ns         INTEGER,
    duration_ns        INTEGER,  -- 'all' row: the run's wall time
    predicted_speedup  REAL      -- 'all' row: NULL when unbounded
);

CREATE VIEW IF NOT EXISTS findings AS
SELECT id, kind, flavour, fingerprint, occurrences, bytes, savings_ns, devices, locations,
       origins, data_addr, data_bytes
  FROM finding_raw;

CREATE VIEW IF NOT EXISTS finding_events AS
SELECT e.finding     AS finding_id,
       e.occurrence  AS occurrence,
       e.role        AS role,
       e.seq         AS seq,
       d.op          AS op,
       d.src_device  AS src_device,
       d.dest_device AS dest_device,
       d.bytes       AS bytes,
       d.begin_ns    AS begin_ns,
       d.end_ns      AS end_ns,
       d.hash        AS hash,
       d.codeptr     AS codeptr
  FROM finding_event_raw e
  LEFT JOIN data_ops d ON d.seq = e.seq;

CREATE VIEW IF NOT EXISTS finding_summary AS
SELECT kind, findings, occurrences, bytes, savings_ns, duration_ns, predicted_speedup
  FROM finding_summary_raw;

-- END report: findings tables
