# mutate_spool.py FIRST COUNT OUTDIR IN.spool... - damage real spools the way
# crashes, full disks and a second writer do, for tests/e2e/spool_fuzz.sh:
# for each seed N from FIRST on (COUNT of them), OUTDIR/N.spool from the
# input N picks (the others may be mixed in).  The same seed and inputs give
# the same spool.  Prints one line a case: N, the events the damaged spool's
# whole frames hold (what a database built from it must hold when 'mapprof
# recover' succeeds) and what was done, separated by tabs.  One process for
# every case: Python's start costs more than a case.
#
# The spool (db/spool/spool.h): a 24-byte header (magic, version, sizeof(struct
# rec), pid), then frames { uint32 type, uint32 len, payload[len] }.  One to
# three mutations, each one of:
#   flip        XOR a few bytes (often in a frame header or the file header)
#   truncate    cut the file at a random length (mid-frame, mid-header)
#   empty       insert a zero-length frame of a random type (RECORDS too)
#   oversize    a frame's len set past the end of the file, or to 2^32-1
#   interleave  the frames of a second spool (another process) mixed in
#   duplicate   a frame written twice (a second RUN, the same events again)
#   field       a record's or a CLOCK frame's number set to an extreme
#   badlen      a RECORDS frame whose len is not a whole number of records
#   string      a string field's length set past its frame, or its NUL gone
# Python's standard library only.
import random, struct, sys

import os

first_seed, ncases, outdir, srcs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
HDR = 24


def frames(data):
    """The whole frames after the header, as [type, payload] lists."""
    out, off = [], HDR
    while len(data) - off >= 8:
        t, n = struct.unpack_from('<II', data, off)
        if len(data) - off - 8 < n:
            break
        out.append([t, bytearray(data[off + 8:off + 8 + n])])
        off += 8 + n
    return out


def join(header, fr):
    b = bytearray(header)
    for t, p in fr:
        b += struct.pack('<II', t, len(p)) + p
    return b


inputs = [open(s, 'rb').read() for s in srcs]
EXTREMES = [0, 1, -1, 2**63 - 1, -2**63, 2**62, -2**62, 2**32, 2**31 - 1]


def mutate(seed):
    rng = random.Random(seed)
    first = seed % len(inputs)
    data = inputs[first]
    REC = struct.unpack_from('<I', data, 12)[0]
    header = bytearray(data[:HDR])
    fr = frames(data)
    done = []
    raw_after = []   # byte-level mutations, after the frame-level ones

    def pick(types=None):
        idx = [i for i, (t, _) in enumerate(fr) if types is None or t in types]
        return rng.choice(idx) if idx else None

    for _ in range(rng.randint(1, 3)):
        m = rng.choice(['flip', 'flip', 'truncate', 'truncate', 'empty', 'oversize', 'interleave',
            'duplicate', 'field', 'field', 'badlen', 'string'])
        if m == 'empty':
            t = rng.choice([1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 99, 2**31])
            at = rng.randint(0, len(fr))
            fr.insert(at, [t, bytearray()])
            done.append('empty type %d at frame %d' % (t, at))
        elif m == 'interleave' and len(inputs) > 1:
            other = frames(inputs[rng.choice([i for i in range(len(inputs)) if i != first])])
            merged, i, j = [], 0, 0
            while i < len(fr) or j < len(other):
                if j >= len(other) or (i < len(fr) and rng.random() < 0.5):
                    merged.append(fr[i]); i += 1
                else:
                    merged.append(other[j]); j += 1
            fr = merged
            done.append('interleave %d frames of another process' % len(other))
        elif m == 'duplicate' and fr:
            i = pick()
            fr.insert(rng.randint(i, len(fr)), [fr[i][0], bytearray(fr[i][1])])
            done.append('duplicate frame %d (type %d)' % (i, fr[i][0]))
        elif m == 'field' and fr:
            i = pick({1, 11})
            if i is not None and len(fr[i][1]) >= 16:
                p = fr[i][1]
                if fr[i][0] == 1:
                    # a record's type at 0, seq at 24, bytes at 48, begin_ns and end_ns at 56 and 64
                    r = rng.randrange(len(p) // REC) if len(p) >= REC else 0
                    off = r * REC + rng.choice([0, 24, 48, 56, 64, 56, 64])
                    if off + 8 <= len(p):
                        if off % REC == 0:
                            p[off] = rng.choice([0, 1, 2, 3, 4, 255])
                        else:
                            struct.pack_into('<q', p, off, rng.choice(EXTREMES))
                else:
                    struct.pack_into('<q', p, rng.choice([0, 8]), rng.choice(EXTREMES))
                done.append('field of frame %d (type %d)' % (i, fr[i][0]))
        elif m == 'badlen' and fr:
            i = pick({1})
            if i is not None:
                k = rng.choice([1, 7, REC - 1, REC + 1])
                fr[i][1] = fr[i][1][:max(0, len(fr[i][1]) - k)] if rng.random() < 0.5 else fr[i][1] + bytes(k)
                done.append('badlen frame %d' % i)
        elif m == 'string' and fr:
            i = pick({2, 3, 4, 7, 8, 10, 13})
            if i is not None and len(fr[i][1]) >= 4:
                p = fr[i][1]
                if rng.random() < 0.5:
                    struct.pack_into('<I', p, 0, rng.choice([len(p), 2**31, 2**32 - 2, 2**32 - 1]))
                else:
                    p[-1] = 0x41
                done.append('string of frame %d (type %d)' % (i, fr[i][0]))
        else:
            raw_after.append(m)

    data = join(header, fr)
    for m in raw_after:
        if m == 'flip' and len(data) > 0:
            k = rng.randint(1, 6)
            for _ in range(k):
                at = rng.randrange(min(len(data), HDR + 16)) if rng.random() < 0.3 else rng.randrange(len(data))
                data[at] ^= 1 << rng.randrange(8)
            done.append('flip %d bytes' % k)
        elif m == 'truncate':
            n = rng.randrange(len(data) + 1)
            data = data[:n]
            done.append('truncate to %d' % n)
        elif m == 'oversize' and len(data) > HDR + 8:
            offs, off = [], HDR
            while len(data) - off >= 8:
                t, n = struct.unpack_from('<II', data, off)
                offs.append(off)
                if len(data) - off - 8 < n:
                    break
                off += 8 + n
            at = rng.choice(offs)
            big = rng.choice([2**32 - 1, 2**31, len(data) - at, len(data) - at - 7, 2**20])
            struct.pack_into('<I', data, at + 4, big)
            done.append('oversize frame at %d: len %d' % (at, big))
        else:
            done.append(m + ' (nothing to do)')

    # What 'mapprof recover' must keep: every record of a known type in the
    # whole RECORDS frames (a frame cut short ends the spool), a frame with
    # the very payload of an earlier one once (db/ingest/ingest.c skips the copy of
    # a chunk written twice).
    events = 0
    seen = set()
    if len(data) > HDR and data[:8] == b'MPSPOOL\0':
        for t, p in frames(data):
            if t == 1 and len(p) % REC == 0:
                if bytes(p) in seen:
                    continue
                seen.add(bytes(p))
                events += sum(1 for k in range(0, len(p), REC) if p[k] in (1, 2, 3))
    return data, events, '; '.join(done)


for seed in range(first_seed, first_seed + ncases):
    data, events, what = mutate(seed)
    open(os.path.join(outdir, '%d.spool' % seed), 'wb').write(data)
    print('%d\t%d\t%s' % (seed, events, what))
