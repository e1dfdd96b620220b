# mutate_freelist.py IN.db SEED OUT.db - damage the freelist of an SQLite
# file the way a bad sector, a stray write or a buggy writer would, for
# tests/e2e/freelist_fuzz.sh.  The same seed and input give the same file.
# Prints what was done (one line).
#
# SQLite's freelist (fileformat2.html, 1.5): the header's first trunk page
# (offset 32) and count of free pages (offset 36); a trunk page holds the
# next trunk's number, a count K and K leaf page numbers, big-endian.  One
# to three mutations, each one of:
#   self       a trunk's next trunk set to itself (a loop)
#   loop       the last trunk's next set to an earlier trunk
#   next_leaf  a trunk's next set to one of the leaves listed
#   next_oob   a trunk's next set to 1, or past the file's end
#   dup_leaf   a leaf set to another leaf (of its trunk or another)
#   leaf_trunk a leaf set to a trunk page
#   leaf_oob   a leaf set to 0, 1, or past the file's end
#   k_big      a trunk's K set past what a page holds, or past the list
#   k_small    a trunk's K made smaller (the header's count then too big)
#   count      the header's count moved by a little or a lot
#   first      the header's first trunk set to 0, to a leaf, or past the end
#   flip       a few bytes of a trunk page's first 16 flipped
# Python's standard library only.
import random, struct, sys

src, seed, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = bytearray(open(src, 'rb').read())
rng = random.Random(seed)
page_size = struct.unpack_from('>H', data, 16)[0]
page_size = 65536 if page_size == 1 else page_size
pages = struct.unpack_from('>I', data, 28)[0]


def at(pg):
    return (pg - 1) * page_size


def u32(off):
    return struct.unpack_from('>I', data, off)[0]


def put(off, v):
    struct.pack_into('>I', data, off, v & 0xffffffff)


# The list as it is: [(trunk, [leaves])].
trunks, t, seen = [], u32(32), set()
while t and 2 <= t <= pages and t not in seen and len(trunks) < 100000:
    seen.add(t)
    k = u32(at(t) + 4)
    trunks.append((t, [u32(at(t) + 8 + 4 * i) for i in range(min(k, page_size // 4 - 2))]))
    t = u32(at(t))
if not trunks:
    sys.exit('mutate_freelist.py: %s has no freelist' % src)
leaves = [leaf for _, ls in trunks for leaf in ls]
done = []
for _ in range(rng.choice([1, 1, 1, 2, 3])):
    kind = rng.choice(['self', 'loop', 'next_leaf', 'next_oob', 'dup_leaf', 'leaf_trunk', 'leaf_oob',
                       'k_big', 'k_small', 'count', 'first', 'flip'])
    ti = rng.randrange(len(trunks))
    trunk, ls = trunks[ti]
    if kind == 'self':
        put(at(trunk), trunk)
    elif kind == 'loop':
        put(at(trunks[-1][0]), trunks[rng.randrange(len(trunks))][0])
    elif kind == 'next_leaf' and leaves:
        put(at(trunk), rng.choice(leaves))
    elif kind == 'next_oob':
        put(at(trunk), rng.choice([1, pages + 1, pages + rng.randrange(2, 1 << 20), 0xffffffff]))
    elif kind == 'dup_leaf' and len(leaves) > 1 and ls:
        i = rng.randrange(len(ls))
        put(at(trunk) + 8 + 4 * i, rng.choice([x for x in leaves if x != ls[i]] or leaves))
    elif kind == 'leaf_trunk' and ls:
        put(at(trunk) + 8 + 4 * rng.randrange(len(ls)), rng.choice(trunks)[0])
    elif kind == 'leaf_oob' and ls:
        put(at(trunk) + 8 + 4 * rng.randrange(len(ls)), rng.choice([0, 1, pages + 1, 0x7fffffff]))
    elif kind == 'k_big':
        put(at(trunk) + 4, rng.choice([len(ls) + 1, page_size // 4 - 1, page_size, 0xffffffff]))
    elif kind == 'k_small' and ls:
        put(at(trunk) + 4, rng.randrange(len(ls)))
    elif kind == 'count':
        put(36, u32(36) + rng.choice([1, -1, 2, -2, 1000, -u32(36), 1 << 30]))
    elif kind == 'first':
        put(32, rng.choice([0, rng.choice(leaves or [2]), pages + 1]))
    else:
        kind = 'flip'
        for _ in range(rng.randrange(1, 4)):
            data[at(trunk) + rng.randrange(16)] ^= 1 << rng.randrange(8)
    done.append('%s@%d' % (kind, trunk))
open(dst, 'wb').write(data)
print(' '.join(done))
