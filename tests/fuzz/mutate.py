# mutate.py SEED IN.db OUT.db - copy a real recording to OUT.db and damage it
# the way disks, crashes and hand edits do, for tests/e2e/report_fuzz.sh.  The
# same SEED and IN.db give the same OUT.db.  Prints what it did on one line.
#
# One to three mutations, each one of:
#   flip      XOR a few bytes at random offsets (often in the 100-byte header
#             or the first pages, where SQLite keeps its schema)
#   truncate  cut the file at a random length
#   update    set a random column of a random row of a random table to NULL,
#             -1, 0, 2^62, -2^63, 2^63-1, a huge float, a long string, a blob
#             or a random integer (CHECK constraints off)
#   delete    delete one random row, or a random share of a table's rows
#   drop      drop a random table or view
# Byte-level mutations come after the SQL ones (SQLite could not open the file
# to do the rest).  Python's standard library only.
import os, random, shutil, sqlite3, sys

seed = int(sys.argv[1]); src = sys.argv[2]; dst = sys.argv[3]
rng = random.Random(seed)
shutil.copyfile(src, dst)
done = []

VALUES = [None, -1, 0, 1, 2**62, -2**63, 2**63 - 1, 1.5e300, -0.0,
          "x" * 5000, "", "'\";<script>\u00e9\x01", b"\x00\xff" * 9]


def value():
    if rng.random() < 0.2:
        return rng.randint(-2**63, 2**63 - 1)
    return rng.choice(VALUES)


def show(v):
    if isinstance(v, str) and len(v) > 20:
        return "'%s...'(%d chars)" % (v[:8], len(v))
    if isinstance(v, bytes):
        return "blob(%d)" % len(v)
    return repr(v)


def objects(db, kind):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'"
        " ORDER BY name", (kind,))]


def rowkeys(db, table):
    """The rows of TABLE as (column, value) pairs that name them."""
    try:
        return [("rowid", r[0]) for r in db.execute("SELECT rowid FROM \"%s\"" % table)]
    except sqlite3.OperationalError:  # WITHOUT ROWID: the primary key
        pk = [r[1] for r in db.execute("PRAGMA table_info(\"%s\")" % table) if r[5]][0]
        return [(pk, r[0]) for r in db.execute("SELECT \"%s\" FROM \"%s\"" % (pk, table))]


def sql_mutation(db):
    tables = [t for t in objects(db, "table") if rowkeys(db, t)]
    what = rng.choice(["update"] * 6 + ["delete"] * 2 + ["drop"])
    if what == "drop":
        names = objects(db, "table") + objects(db, "view")
        name = rng.choice(names)
        kind = "VIEW" if name in objects(db, "view") else "TABLE"
        db.execute("DROP %s \"%s\"" % (kind, name))
        return "drop %s %s" % (kind.lower(), name)
    if not tables:
        return None
    table = rng.choice(tables)
    keys = rowkeys(db, table)
    if what == "delete":
        if rng.random() < 0.5:
            col, key = rng.choice(keys)
            db.execute("DELETE FROM \"%s\" WHERE \"%s\" = ?" % (table, col), (key,))
            return "delete %s %s=%s" % (table, col, show(key))
        share = rng.choice([0.1, 0.5, 0.9, 1.0])
        for col, key in keys:
            if rng.random() < share:
                db.execute("DELETE FROM \"%s\" WHERE \"%s\" = ?" % (table, col), (key,))
        return "delete %d%% of %s" % (share * 100, table)
    cols = [r[1] for r in db.execute("PRAGMA table_info(\"%s\")" % table)]
    for _ in range(8):  # a primary key refuses some values: try others
        col, key = rng.choice(keys)
        column = rng.choice(cols)
        v = value()
        try:
            db.execute("UPDATE \"%s\" SET \"%s\" = ? WHERE \"%s\" = ?" % (table, column, col),
                       (v, key))
        except (sqlite3.IntegrityError, sqlite3.OperationalError):
            continue
        return "update %s %s=%s: %s = %s" % (table, col, show(key), column, show(v))
    return None


def byte_mutation(path):
    size = os.path.getsize(path)
    if size == 0:
        return None
    if rng.random() < 0.25:
        n = rng.choice([0, 50, 100, 512, 4096, rng.randrange(size)])
        n = min(n, size - 1)
        with open(path, "r+b") as f:
            f.truncate(n)
        return "truncate to %d of %d bytes" % (n, size)
    flips = []
    with open(path, "r+b") as f:
        for _ in range(rng.randint(1, 8)):
            r = rng.random()
            if r < 0.2:
                off = rng.randrange(min(100, size))
            elif r < 0.6:
                off = rng.randrange(min(4 * 4096, size))
            else:
                off = rng.randrange(size)
            f.seek(off)
            b = f.read(1)[0]
            x = rng.choice([0x01, 0x80, 0xff, rng.randint(1, 255)])
            f.seek(off)
            f.write(bytes([b ^ x]))
            flips.append("%d^%02x" % (off, x))
    return "flip " + " ".join(flips)


nsql = 0 if rng.random() < 0.3 else rng.randint(1, 3)
bytes_too = nsql == 0 or rng.random() < 0.1
if nsql:
    db = sqlite3.connect(dst, isolation_level=None)
    db.execute("PRAGMA ignore_check_constraints = ON")
    for _ in range(nsql):
        d = sql_mutation(db)
        if d:
            done.append(d)
    db.close()
if bytes_too:
    d = byte_mutation(dst)
    if d:
        done.append(d)
print("; ".join(done) or "nothing")
