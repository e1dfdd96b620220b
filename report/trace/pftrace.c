/*
 * pftrace.c - Perfetto's protobuf trace format, encoded by hand.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lib/hmap.h"
#include "lib/varint.h"
#include "report/trace/pftrace.h"

/* XXH3-64 from libxxhash's header, compiled in (as report/attribute/snippet.c does). */
#define XXH_INLINE_ALL
#include <xxhash.h>

/* Wire types. */
enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2 };

/* Field numbers, from Perfetto's protos (see pftrace.h). */
enum {
	TRACE_PACKET = 1,                      /* Trace */
	PACKET_TIMESTAMP = 8,                  /* TracePacket */
	PACKET_SEQUENCE_ID = 10,               /* trusted_packet_sequence_id */
	PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED_DATA = 12,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_TRACK_DESCRIPTOR = 60,
	TRACK_UUID = 1,                        /* TrackDescriptor */
	TRACK_NAME = 2,
	TRACK_PROCESS = 3,
	TRACK_PARENT_UUID = 5,
	TRACK_COUNTER = 8,                     /* a CounterDescriptor (empty: a plain counter) */
	PROCESS_PID = 1,                       /* ProcessDescriptor */
	PROCESS_NAME = 6,
	EVENT_CATEGORY_IIDS = 3,               /* TrackEvent */
	EVENT_DEBUG_ANNOTATIONS = 4,
	EVENT_TYPE = 9,
	EVENT_NAME_IID = 10,
	EVENT_TRACK_UUID = 11,
	EVENT_CATEGORIES = 22,
	EVENT_NAME = 23,
	EVENT_FLOW_IDS = 47,                   /* repeated fixed64 */
	EVENT_COUNTER_VALUE = 30,
	ANNOTATION_NAME_IID = 1,               /* DebugAnnotation */
	ANNOTATION_INT = 4,
	ANNOTATION_STRING = 6,
	ANNOTATION_NAME = 10,
	INTERNED_CATEGORIES = 1,               /* InternedData */
	INTERNED_EVENT_NAMES = 2,
	INTERNED_ANNOTATION_NAMES = 3,
	INTERNED_IID = 1,                      /* EventCategory, EventName, DebugAnnotationName */
	INTERNED_NAME = 2,
};

enum { SLICE_BEGIN = 1, SLICE_END = 2, COUNTER = 4 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
/* Any non-zero id: the whole file is one sequence. */
#define SEQUENCE_ID 1
/* Packets are handed to stdio in pieces of about this size (a putc and two fwrites a packet cost a tenth of a trace). */
#define OUT_SIZE (256 * 1024)
/* Direct-mapped caches in front of the interning maps (powers of two). */
#define NAME_CACHE 256
#define STATIC_CACHE 16

/* A growing byte buffer; 'oom' sticks once an append failed. */
struct pb {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

/* A name looked up lately: its hash, its iid and the interned copy (owned by 'ids'). */
struct recent {
	uint64_t key, iid;
	const char *name;
};

/* A static string's iid, by its address (pftrace_slice's category and annotation names). */
struct by_address {
	const char *name;
	uint64_t iid;
};

/* One interning index (InternedData keeps one per kind of name). */
struct interner {
	struct hmap ids;          /* XXH3 of the name -> struct interned */
	uint64_t next;
	struct recent recent[NAME_CACHE];
	struct by_address statics[STATIC_CACHE];
};

struct interned {
	uint64_t iid;
	char *name;
};

/* A slice whose end is not written yet. */
struct pending {
	int64_t end_ns, begin_ns;
	uint64_t track, order;
};

struct pftrace {
	FILE *f;
	int started;              /* a packet was written (the first clears the state) */
	struct pb packet, event, sub, interned, ann;
	struct pb out;            /* whole packets not handed to stdio yet */
	struct interner names, categories, arg_names;
	struct pending *heap;     /* min-heap: the next end to write first */
	size_t nheap, capheap;
	uint64_t order;
};

/* Make room for n more bytes: 0, or -1 (and 'oom' set) when there is none. */
static int pb_grow(struct pb *b, size_t n)
{
	unsigned char *q;
	size_t cap;

	if (b->oom)
		return -1;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	q = realloc(b->p, cap);
	if (!q) {
		b->oom = 1;
		return -1;
	}
	b->p = q;
	b->cap = cap;
	return 0;
}

static inline int pb_room(struct pb *b, size_t n)
{
	return b->len + n <= b->cap ? 0 : pb_grow(b, n);
}

static void pb_raw(struct pb *b, const void *data, size_t n)
{
	if (!n || pb_room(b, n) < 0)
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* Written in place (lib/varint.h). */
static inline void pb_varint(struct pb *b, uint64_t v)
{
	if (pb_room(b, VARINT_MAX) < 0)
		return;
	b->len = (size_t)(varint_put(b->p + b->len, v) - b->p);
}

static void pb_tag(struct pb *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* An integer field: negative int64/int32 values take ten bytes, as protobuf says. */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_fixed64(struct pb *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, WT_FIXED64);
	if (pb_room(b, 8) < 0)
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (unsigned char)(v >> (8 * i));
}

static void pb_bytes(struct pb *b, unsigned field, const void *data, size_t n)
{
	pb_tag(b, field, WT_LEN);
	pb_varint(b, n);
	pb_raw(b, data, n);
}

static void pb_string(struct pb *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* Append the message in 'sub' as field 'field' of 'b', and empty 'sub'. */
static void pb_message(struct pb *b, unsigned field, struct pb *sub)
{
	if (sub->oom)
		b->oom = 1;
	pb_bytes(b, field, sub->p, sub->len);
	sub->len = 0;
}

static void pb_release(struct pb *b)
{
	free(b->p);
}

/*
 * The iid of 'name' in 'in', adding it (and its entry in p->interned, as
 * field 'field') when new; 0 when it is to be written inline (the index is
 * full, or another name has the same hash).
 */
static uint64_t intern(struct pftrace *p, struct interner *in, unsigned field, const char *name)
{
	size_t n = strlen(name);
	uint64_t key = XXH3_64bits(name, n);
	struct recent *r = &in->recent[key & (NAME_CACHE - 1)];
	struct interned *e;
	struct pb *sub = &p->sub;
	char *copy;
	int created;

	/* A name seen lately: no map lookup (it stays interned: the map only grows). */
	if (r->name && r->key == key && !strcmp(r->name, name))
		return r->iid;
	e = hmap_get(&in->ids, &key);
	if (e) {
		if (strcmp(e->name, name))
			return 0;
		*r = (struct recent){ key, e->iid, e->name };
		return e->iid;
	}
	if (in->ids.count >= PFTRACE_MAX_INTERNED || !(copy = strdup(name)))
		return 0;
	e = hmap_put(&in->ids, &key, &created);
	if (!e) {
		free(copy);
		return 0;
	}
	*e = (struct interned){ ++in->next, copy };
	*r = (struct recent){ key, e->iid, copy };
	sub->len = 0;
	pb_uint(sub, INTERNED_IID, e->iid);
	pb_bytes(sub, INTERNED_NAME, name, n);
	pb_message(&p->interned, field, sub);
	return e->iid;
}

/*
 * intern() for a static string (its content never changes at its address):
 * found by its address, without hashing it.
 */
static uint64_t intern_static(struct pftrace *p, struct interner *in, unsigned field, const char *name)
{
	struct by_address *a = &in->statics[((uintptr_t)name >> 3) & (STATIC_CACHE - 1)];
	uint64_t iid;

	if (a->name == name)
		return a->iid;
	iid = intern(p, in, field, name);
	if (iid)
		*a = (struct by_address){ name, iid };
	return iid;
}

static void interner_release(struct interner *in)
{
	size_t pos = 0;
	const uint64_t *key;
	void *val;

	while (hmap_next(&in->ids, &pos, &key, &val))
		free(((struct interned *)val)->name);
	hmap_release(&in->ids);
}

/* Hand the whole packets written so far to stdio. */
static void out_flush(struct pftrace *p)
{
	if (p->out.len)
		fwrite(p->out.p, 1, p->out.len, p->f);
	p->out.len = 0;
}

/* Write p->packet (with the sequence fields added) as one Trace.packet. */
static int put_packet(struct pftrace *p, unsigned flags)
{
	struct pb *pk = &p->packet;

	pb_uint(pk, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	if (!p->started)
		flags |= SEQ_INCREMENTAL_STATE_CLEARED;
	if (flags)
		pb_uint(pk, PACKET_SEQUENCE_FLAGS, flags);
	p->started = 1;
	if (pk->oom) {
		pk->oom = 0;
		pk->len = 0;
		return -1;
	}
	pb_bytes(&p->out, TRACE_PACKET, pk->p, pk->len);
	pk->len = 0;
	if (p->out.oom) {
		p->out.oom = 0;
		p->out.len = 0;
		return -1;
	}
	if (p->out.len >= OUT_SIZE)
		out_flush(p);
	return 0;
}

struct pftrace *pftrace_new(FILE *f)
{
	struct pftrace *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->f = f;
	hmap_init(&p->names.ids, 1, sizeof(struct interned));
	hmap_init(&p->categories.ids, 1, sizeof(struct interned));
	hmap_init(&p->arg_names.ids, 1, sizeof(struct interned));
	return p;
}

int pftrace_process(struct pftrace *p, uint64_t uuid, int pid, const char *name)
{
	struct pb *td = &p->event, *proc = &p->sub;

	td->len = proc->len = 0;
	pb_uint(proc, PROCESS_PID, (uint64_t)(int64_t)pid);
	pb_string(proc, PROCESS_NAME, name);
	pb_uint(td, TRACK_UUID, uuid);
	pb_message(td, TRACK_PROCESS, proc);
	pb_message(&p->packet, PACKET_TRACK_DESCRIPTOR, td);
	return put_packet(p, 0);
}

int pftrace_track(struct pftrace *p, uint64_t uuid, uint64_t parent, const char *name)
{
	struct pb *td = &p->event;

	td->len = 0;
	pb_uint(td, TRACK_UUID, uuid);
	if (parent)
		pb_uint(td, TRACK_PARENT_UUID, parent);
	pb_string(td, TRACK_NAME, name);
	pb_message(&p->packet, PACKET_TRACK_DESCRIPTOR, td);
	return put_packet(p, 0);
}

int pftrace_counter_track(struct pftrace *p, uint64_t uuid, uint64_t parent, const char *name)
{
	struct pb *td = &p->event;

	td->len = p->sub.len = 0;
	pb_uint(td, TRACK_UUID, uuid);
	if (parent)
		pb_uint(td, TRACK_PARENT_UUID, parent);
	pb_string(td, TRACK_NAME, name);
	pb_message(td, TRACK_COUNTER, &p->sub);
	pb_message(&p->packet, PACKET_TRACK_DESCRIPTOR, td);
	return put_packet(p, 0);
}

/* a's end is written before b's: earlier end, then the inner (later-begun) slice first. */
static int before(const struct pending *a, const struct pending *b)
{
	if (a->end_ns != b->end_ns)
		return a->end_ns < b->end_ns;
	if (a->begin_ns != b->begin_ns)
		return a->begin_ns > b->begin_ns;
	return a->order > b->order;
}

static int heap_push(struct pftrace *p, struct pending e)
{
	size_t i;

	if (p->nheap == p->capheap) {
		size_t cap = p->capheap ? 2 * p->capheap : 64;
		struct pending *h = realloc(p->heap, cap * sizeof(*h));
		if (!h)
			return -1;
		p->heap = h;
		p->capheap = cap;
	}
	i = p->nheap++;
	while (i > 0 && before(&e, &p->heap[(i - 1) / 2])) {
		p->heap[i] = p->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	p->heap[i] = e;
	return 0;
}

static struct pending heap_pop(struct pftrace *p)
{
	struct pending top = p->heap[0], last = p->heap[--p->nheap];
	size_t i = 0, n = p->nheap;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&p->heap[c + 1], &p->heap[c]))
			c++;
		if (!before(&p->heap[c], &last))
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	if (n)
		p->heap[i] = last;
	return top;
}

static uint64_t timestamp(int64_t ns)
{
	return ns > 0 ? (uint64_t)ns : 0;
}

/* Write the held-back ends up to 'ns' (all of them: INT64_MAX). */
static int flush_ends(struct pftrace *p, int64_t ns)
{
	while (p->nheap && p->heap[0].end_ns <= ns) {
		struct pending e = heap_pop(p);
		struct pb *ev = &p->event;

		ev->len = 0;
		pb_uint(ev, EVENT_TYPE, SLICE_END);
		pb_uint(ev, EVENT_TRACK_UUID, e.track);
		pb_uint(&p->packet, PACKET_TIMESTAMP, timestamp(e.end_ns));
		pb_message(&p->packet, PACKET_TRACK_EVENT, ev);
		if (put_packet(p, 0) < 0)
			return -1;
	}
	return 0;
}

int pftrace_slice(struct pftrace *p, const struct pftrace_slice *s)
{
	struct pb *ev = &p->event, *sub = &p->sub;
	uint64_t iid;
	int64_t end = s->end_ns > s->begin_ns ? s->end_ns : s->begin_ns;

	if (flush_ends(p, s->begin_ns) < 0)
		return -1;
	ev->len = sub->len = p->interned.len = 0;
	pb_uint(ev, EVENT_TYPE, SLICE_BEGIN);
	pb_uint(ev, EVENT_TRACK_UUID, s->track);
	if ((iid = intern_static(p, &p->categories, INTERNED_CATEGORIES, s->category)))
		pb_uint(ev, EVENT_CATEGORY_IIDS, iid);
	else
		pb_string(ev, EVENT_CATEGORIES, s->category);
	if ((iid = intern(p, &p->names, INTERNED_EVENT_NAMES, s->name)))
		pb_uint(ev, EVENT_NAME_IID, iid);
	else
		pb_string(ev, EVENT_NAME, s->name);
	for (size_t i = 0; i < s->nargs; i++) {
		const struct pftrace_arg *a = &s->args[i];
		/* 'sub' is intern()'s scratch: the annotation is built apart. */
		p->ann.len = 0;
		if ((iid = intern_static(p, &p->arg_names, INTERNED_ANNOTATION_NAMES, a->name)))
			pb_uint(&p->ann, ANNOTATION_NAME_IID, iid);
		else
			pb_string(&p->ann, ANNOTATION_NAME, a->name);
		if (a->str)
			pb_string(&p->ann, ANNOTATION_STRING, a->str);
		else
			pb_uint(&p->ann, ANNOTATION_INT, (uint64_t)a->num);
		pb_message(ev, EVENT_DEBUG_ANNOTATIONS, &p->ann);
	}
	for (size_t i = 0; i < s->nflows; i++)
		pb_fixed64(ev, EVENT_FLOW_IDS, s->flows[i]);
	pb_uint(&p->packet, PACKET_TIMESTAMP, timestamp(s->begin_ns));
	pb_message(&p->packet, PACKET_TRACK_EVENT, ev);
	if (p->interned.len || p->interned.oom)
		pb_message(&p->packet, PACKET_INTERNED_DATA, &p->interned);
	if (put_packet(p, SEQ_NEEDS_INCREMENTAL_STATE) < 0)
		return -1;
	return heap_push(p, (struct pending){ end, s->begin_ns, s->track, ++p->order });
}

int pftrace_counter(struct pftrace *p, uint64_t track, int64_t t_ns, int64_t value)
{
	struct pb *ev = &p->event;

	/* The ends before it first: the file stays in time order. */
	if (flush_ends(p, t_ns) < 0)
		return -1;
	ev->len = 0;
	pb_uint(ev, EVENT_TYPE, COUNTER);
	pb_uint(ev, EVENT_TRACK_UUID, track);
	pb_uint(ev, EVENT_COUNTER_VALUE, (uint64_t)value);
	pb_uint(&p->packet, PACKET_TIMESTAMP, timestamp(t_ns));
	pb_message(&p->packet, PACKET_TRACK_EVENT, ev);
	return put_packet(p, 0);
}

int pftrace_finish(struct pftrace *p)
{
	if (flush_ends(p, INT64_MAX) < 0)
		return -1;
	out_flush(p);
	return 0;
}

void pftrace_free(struct pftrace *p)
{
	if (!p)
		return;
	interner_release(&p->names);
	interner_release(&p->categories);
	interner_release(&p->arg_names);
	pb_release(&p->packet);
	pb_release(&p->event);
	pb_release(&p->sub);
	pb_release(&p->interned);
	pb_release(&p->ann);
	pb_release(&p->out);
	free(p->heap);
	free(p);
}
