/*
 * otf2.c - the OTF2 archive: definitions kept until the end, events put
 * in a lane file (report/trace/lanefile.h) as they come, one lane per
 * location, and written through libotf2 at the end, one location after
 * another.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "lib/grow.h"
#include "lib/hmap.h"
#include "lib/tempfile.h"
#include "lib/varint.h"
#include "report/trace/lanefile.h"
#include "report/trace/otf2.h"

/*
 * The event chunk of the one open event writer (libotf2 writes a full one
 * out): libotf2's smallest.  Its file layer adds a buffer of 4 MiB
 * (OTF2_FILE_BUFFER_SIZE in libotf2's source) to every file written in
 * pieces smaller than that; only a chunk of 4 MiB or more escapes it, and
 * such a chunk costs as much itself.
 */
#define EVT_CHUNK OTF2_CHUNK_SIZE_MIN
#define DEF_CHUNK (4u << 20)

/*
 * The records of the lane file: a byte (kind | the number of findings << 4),
 * the time (lib/varint.h's zigzag_put(), from the location's last), each
 * finding (id, kind), the fields (varint_put()).
 */
enum rec { R_ENTER = 1, R_LEAVE, R_GET, R_PUT, R_DONE, R_METRIC, R_OVERLAP };

/* The longest record: a byte and the numbers. */
#define REC_MAX (1 + VARINT_MAX * (4 + 2 * OTF2W_MAX_FINDINGS))

struct node {
	uint32_t name, class_name, parent;
};

struct group {
	uint32_t name, node, creator;
	enum otf2w_group_type type;
};

struct location {
	uint32_t name, group;
	enum otf2w_location_type type;
	uint64_t events;
	uint64_t last_t;           /* its last record's time: the next one's is put as the difference */
};

struct region {
	uint32_t name, file, line;
	int role, paradigm;
};

struct otf2w {
	OTF2_Archive *ar;
	OTF2_AttributeList *attrs;
	struct lanefile *events;   /* each location's records, in its lane */
	OTF2_ErrorCode failed;     /* the first error of libotf2 (OTF2_SUCCESS: none) */
	char *why;                 /* what libotf2 said of it */
	int oom;
	char **strings;
	size_t nstrings, capstrings;
	struct hmap string_refs;   /* (hash, probe) -> uint32 ref + 1 */
	struct node *nodes;
	size_t nnodes, capnodes;
	struct group *groups;
	size_t ngroups, capgroups;
	struct location *locs;
	size_t nlocs, caplocs;
	struct region *regions;
	size_t nregions, capregions;
};

/* libotf2's errors go here instead of to standard error: the first one is kept. */
static struct otf2w *current;

__attribute__((format(printf, 6, 0)))
static OTF2_ErrorCode on_error(void *data, const char *file, uint64_t line, const char *function,
			       OTF2_ErrorCode code, const char *fmt, va_list va)
{
	struct otf2w *w = current;
	char *msg = NULL;

	(void)data;
	(void)file;
	(void)line;
	(void)function;
	if (w && !w->why && fmt && vasprintf(&msg, fmt, va) >= 0 && *msg)
		w->why = msg;
	else
		free(msg);
	if (w && w->failed == OTF2_SUCCESS)
		w->failed = code;
	return code;
}

static OTF2_FlushType pre_flush(void *data, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
	(void)data;
	(void)type;
	(void)loc;
	(void)caller;
	(void)final;
	return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

/*
 * The chunks of one buffer.  libotf2 keeps every chunk it is given until
 * the writer closes, unless an allocation fails: then it writes the full
 * ones out (pre_flush) and frees them (free_all).  So an event buffer is
 * given EVT_CHUNKS chunks at a time, and memory stays flat however many
 * events come; definitions get what they ask for.
 */
#define EVT_CHUNKS 1

struct chunks {
	size_t n, cap;
	void **v;
};

static void *chunk_alloc(void *data, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer, uint64_t size)
{
	struct chunks *c = *per_buffer;
	void *p;

	(void)data;
	(void)loc;
	if (!c && !(c = *per_buffer = calloc(1, sizeof(*c))))
		return NULL;
	if (type == OTF2_FILETYPE_EVENTS && c->n >= EVT_CHUNKS)
		return NULL;
	if (grow_one((void **)&c->v, &c->cap, c->n, sizeof(*c->v)) < 0 || !(p = malloc(size)))
		return NULL;
	c->v[c->n++] = p;
	return p;
}

static void chunk_free_all(void *data, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer, bool final)
{
	struct chunks *c = *per_buffer;

	(void)data;
	(void)type;
	(void)loc;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	c->n = 0;
	if (final) {
		free(c->v);
		free(c);
		*per_buffer = NULL;
	}
}

static const OTF2_MemoryCallbacks memory_callbacks = { chunk_alloc, chunk_free_all };

/* A libotf2 call's result: 0, or -1 with the error kept. */
static int check(struct otf2w *w, OTF2_ErrorCode rc)
{
	if (rc == OTF2_SUCCESS)
		return 0;
	if (w->failed == OTF2_SUCCESS)
		w->failed = rc;
	return -1;
}

struct otf2w *otf2w_open(const char *dir, char **err)
{
	struct otf2w *w = calloc(1, sizeof(*w));

	if (!w || !(w->attrs = OTF2_AttributeList_New())) {
		free(w);
		*err = strdup("out of memory");
		return NULL;
	}
	if (!(w->events = lanefile_new())) {
		if (asprintf(err, "cannot make a temporary file for the OTF2 archive's events in '%s' (TMPDIR): %s",
			     tempfile_dir(), strerror(errno)) < 0)
			*err = NULL;
		OTF2_AttributeList_Delete(w->attrs);
		free(w);
		return NULL;
	}
	hmap_init(&w->string_refs, 2, sizeof(uint32_t));
	current = w;
	OTF2_Error_RegisterCallback(on_error, NULL);
	w->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, EVT_CHUNK, DEF_CHUNK, OTF2_SUBSTRATE_POSIX,
				  OTF2_COMPRESSION_NONE);
	if (!w->ar || check(w, OTF2_Archive_SetFlushCallbacks(w->ar, &flush_callbacks, NULL)) ||
	    check(w, OTF2_Archive_SetMemoryCallbacks(w->ar, &memory_callbacks, NULL)) ||
	    check(w, OTF2_Archive_SetSerialCollectiveCallbacks(w->ar)) ||
	    check(w, OTF2_Archive_SetCreator(w->ar, "mapprof")) ||
	    check(w, OTF2_Archive_SetDescription(w->ar, "OpenMP offload data mapping, recorded by mapprof")) ||
	    check(w, OTF2_Archive_OpenEvtFiles(w->ar))) {
		if (asprintf(err, "cannot make the OTF2 archive in '%s': %s", dir,
			     w->why ? w->why : OTF2_Error_GetDescription(w->failed)) < 0)
			*err = NULL;
		otf2w_abort(w);
		return NULL;
	}
	return w;
}

static uint64_t hash_string(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

uint32_t otf2w_string(struct otf2w *w, const char *s)
{
	uint64_t key[2] = { hash_string(s), 0 };

	/* Two strings of one hash: the next probe number. */
	for (;; key[1]++) {
		int created;
		uint32_t *ref = hmap_put(&w->string_refs, key, &created);
		if (!ref)
			break;
		if (!created) {
			if (!strcmp(w->strings[*ref - 1], s))
				return *ref - 1;
			continue;
		}
		if (grow_one((void **)&w->strings, &w->capstrings, w->nstrings, sizeof(char *)) < 0 ||
		    !(w->strings[w->nstrings] = strdup(s))) {
			hmap_del(&w->string_refs, key);
			break;
		}
		*ref = (uint32_t)++w->nstrings;
		return *ref - 1;
	}
	w->oom = 1;
	return OTF2W_NONE;
}

uint32_t otf2w_node(struct otf2w *w, const char *name, const char *class_name, uint32_t parent)
{
	uint32_t n = otf2w_string(w, name), c = otf2w_string(w, class_name);

	if (n == OTF2W_NONE || c == OTF2W_NONE ||
	    grow_one((void **)&w->nodes, &w->capnodes, w->nnodes, sizeof(*w->nodes)) < 0) {
		w->oom = 1;
		return OTF2W_NONE;
	}
	w->nodes[w->nnodes] = (struct node){ n, c, parent };
	return (uint32_t)w->nnodes++;
}

uint32_t otf2w_group(struct otf2w *w, const char *name, enum otf2w_group_type type, uint32_t node,
		     uint32_t creator)
{
	uint32_t n = otf2w_string(w, name);

	if (n == OTF2W_NONE || grow_one((void **)&w->groups, &w->capgroups, w->ngroups, sizeof(*w->groups)) < 0) {
		w->oom = 1;
		return OTF2W_NONE;
	}
	w->groups[w->ngroups] = (struct group){ n, node, creator, type };
	return (uint32_t)w->ngroups++;
}

uint32_t otf2w_location(struct otf2w *w, const char *name, enum otf2w_location_type type, uint32_t group)
{
	uint32_t n = otf2w_string(w, name);

	if (n == OTF2W_NONE || grow_one((void **)&w->locs, &w->caplocs, w->nlocs, sizeof(*w->locs)) < 0) {
		w->oom = 1;
		return OTF2W_NONE;
	}
	w->locs[w->nlocs] = (struct location){ n, group, type, 0, 0 };
	return (uint32_t)w->nlocs++;
}

uint32_t otf2w_region(struct otf2w *w, const char *name, const char *file, uint32_t line, int role,
		      int paradigm)
{
	uint32_t n = otf2w_string(w, name), f = file ? otf2w_string(w, file) : OTF2_UNDEFINED_STRING;

	if (n == OTF2W_NONE || (file && f == OTF2W_NONE) ||
	    grow_one((void **)&w->regions, &w->capregions, w->nregions, sizeof(*w->regions)) < 0) {
		w->oom = 1;
		return OTF2W_NONE;
	}
	w->regions[w->nregions] = (struct region){ n, f, line, role, paradigm };
	return (uint32_t)w->nregions++;
}

/* The lane file failed (errno): the archive fails with what the system said.  -1. */
static int spool_failed(struct otf2w *w, const char *doing)
{
	if (!w->why && asprintf(&w->why, "cannot %s the temporary file of the events in '%s' (TMPDIR): %s", doing,
				tempfile_dir(), strerror(errno)) < 0)
		w->why = NULL;
	if (w->failed == OTF2_SUCCESS)
		w->failed = OTF2_ERROR_FILE_INTERACTION;
	return -1;
}

/*
 * Start a record of 'kind' at time 't' on 'loc' in buf, with the findings
 * 'f' (or NULL): where its fields go, or NULL when the archive has failed.
 * The time is the difference from the location's last one (zigzag: a time
 * may go back).
 */
static uint8_t *rec_start(struct otf2w *w, uint32_t loc, uint8_t *buf, enum rec kind, uint64_t t,
			  const struct otf2w_findings *f)
{
	struct location *l;
	uint8_t *p;
	int n = f ? (f->n < OTF2W_MAX_FINDINGS ? f->n : OTF2W_MAX_FINDINGS) : 0;

	if (loc >= w->nlocs || w->failed != OTF2_SUCCESS)
		return NULL;
	l = &w->locs[loc];
	l->events++;
	buf[0] = (uint8_t)(kind | n << 4);
	p = zigzag_put(buf + 1, t - l->last_t);
	l->last_t = t;
	for (int i = 0; i < n; i++)
		p = varint_put(varint_put(p, f->id[i]), f->kind[i]);
	return p;
}

/* The record buf..end on 'loc'.  0 or -1. */
static int rec_put(struct otf2w *w, uint32_t loc, uint8_t *buf, uint8_t *end)
{
	return lanefile_put(w->events, loc, buf, (size_t)(end - buf)) < 0 ? spool_failed(w, "write") : 0;
}

int otf2w_enter(struct otf2w *w, uint32_t loc, uint64_t t, uint32_t region, const struct otf2w_findings *f)
{
	uint8_t buf[REC_MAX], *p = rec_start(w, loc, buf, R_ENTER, t, f);

	return p ? rec_put(w, loc, buf, varint_put(p, region)) : -1;
}

int otf2w_leave(struct otf2w *w, uint32_t loc, uint64_t t, uint32_t region)
{
	uint8_t buf[REC_MAX], *p = rec_start(w, loc, buf, R_LEAVE, t, NULL);

	return p ? rec_put(w, loc, buf, varint_put(p, region)) : -1;
}

int otf2w_rma(struct otf2w *w, uint32_t loc, uint64_t t, int get, uint32_t remote, uint64_t bytes, uint64_t id,
	      const struct otf2w_findings *f)
{
	uint8_t buf[REC_MAX], *p = rec_start(w, loc, buf, get ? R_GET : R_PUT, t, f);

	return p ? rec_put(w, loc, buf, varint_put(varint_put(varint_put(p, remote), bytes), id)) : -1;
}

int otf2w_rma_done(struct otf2w *w, uint32_t loc, uint64_t t, uint64_t id)
{
	uint8_t buf[REC_MAX], *p = rec_start(w, loc, buf, R_DONE, t, NULL);

	return p ? rec_put(w, loc, buf, varint_put(p, id)) : -1;
}

int otf2w_metric(struct otf2w *w, uint32_t loc, uint64_t t, uint64_t bytes)
{
	uint8_t buf[REC_MAX], *p = rec_start(w, loc, buf, R_METRIC, t, NULL);

	return p ? rec_put(w, loc, buf, varint_put(p, bytes)) : -1;
}

int otf2w_overlap(struct otf2w *w, uint32_t loc, uint64_t t, uint64_t value)
{
	uint8_t buf[REC_MAX], *p = rec_start(w, loc, buf, R_OVERLAP, t, NULL);

	return p ? rec_put(w, loc, buf, varint_put(p, value)) : -1;
}

/* A number of the lane (lib/varint.h): 0, or -1 at its end or on an error (*bad). */
static int get_num(struct lanefile_reader *r, uint64_t *v, int *bad)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		int c = lanefile_getc(r);
		if (c < 0) {
			*bad = c == -2 ? -1 : 1;
			return -1;
		}
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
	}
	*bad = 1;
	return -1;
}

/* The record of 'kind' (its time t) through libotf2, its fields read from r.  0 or -1. */
static int replay_one(struct otf2w *w, OTF2_EvtWriter *ew, struct lanefile_reader *r, int kind, int nfind,
		      uint64_t t, int *bad)
{
	OTF2_Type type = OTF2_TYPE_UINT64;
	OTF2_MetricValue v;
	uint64_t a, b, c;

	for (int i = 0; i < nfind; i++) {
		if (get_num(r, &a, bad) || get_num(r, &b, bad))
			return -1;
		if (check(w, OTF2_AttributeList_AddUint32(w->attrs, OTF2W_ATTR_FINDING(i), (uint32_t)a)) ||
		    check(w, OTF2_AttributeList_AddStringRef(w->attrs, OTF2W_ATTR_KIND(i), (uint32_t)b)))
			return -1;
	}
	if (get_num(r, &a, bad))
		return -1;
	switch (kind) {
	case R_ENTER:
		return check(w, OTF2_EvtWriter_Enter(ew, w->attrs, t, (uint32_t)a));
	case R_LEAVE:
		return check(w, OTF2_EvtWriter_Leave(ew, NULL, t, (uint32_t)a));
	case R_GET:
	case R_PUT:
		if (get_num(r, &b, bad) || get_num(r, &c, bad))
			return -1;
		return check(w, kind == R_GET ? OTF2_EvtWriter_RmaGet(ew, w->attrs, t, OTF2W_WIN, (uint32_t)a, b, c)
					      : OTF2_EvtWriter_RmaPut(ew, w->attrs, t, OTF2W_WIN, (uint32_t)a, b, c));
	case R_DONE:
		return check(w, OTF2_EvtWriter_RmaOpCompleteBlocking(ew, NULL, t, OTF2W_WIN, a));
	case R_METRIC:
	case R_OVERLAP:
		v.unsigned_int = a;
		return check(w, OTF2_EvtWriter_Metric(ew, NULL, t, kind == R_METRIC ? OTF2W_METRIC
										    : OTF2W_METRIC_OVERLAP,
						      1, &type, &v));
	}
	*bad = 1;
	return -1;
}

/* Location 'loc's records, from its lane, into its event file.  0 or -1. */
static int replay(struct otf2w *w, uint32_t loc, struct lanefile_reader *r)
{
	OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, loc);
	uint64_t t = 0, d = 0;
	int rc = 0, bad = 0, c = 0;

	if (!ew)
		return check(w, OTF2_ERROR_INVALID);
	lanefile_reader_init(r, w->events, loc);
	while (!rc && (c = lanefile_getc(r)) >= 0) {
		rc = get_num(r, &d, &bad);
		t += zigzag_value(d);
		rc = rc || replay_one(w, ew, r, c & 0x0f, c >> 4, t, &bad);
	}
	if (c == -2)
		bad = -1;
	if (bad < 0)
		spool_failed(w, "read");
	if (bad > 0 && !w->why)
		w->why = strdup("the temporary file of the events is damaged");
	if (bad > 0 && w->failed == OTF2_SUCCESS)
		w->failed = OTF2_ERROR_FILE_INTERACTION;
	return check(w, OTF2_Archive_CloseEvtWriter(w->ar, ew)) || rc || bad ? -1 : 0;
}

/* The strings, and the definitions every archive has: paradigm, attributes, metrics.  0 or -1. */
static int write_fixed(struct otf2w *w, OTF2_GlobalDefWriter *d)
{
	OTF2_MetricMemberRef member = 0, overlap = 1;
	uint32_t names[2 * OTF2W_MAX_FINDINGS], s[9];
	int rc = 0;

	s[0] = otf2w_string(w, "a finding of 'mapprof report' that names this event: its id");
	s[1] = otf2w_string(w, "the kind of that finding (round_trip, duplicate_transfer, ...)");
	s[2] = otf2w_string(w, "device memory in use");
	s[3] = otf2w_string(w, "bytes");
	s[4] = otf2w_string(w, "OpenMP target memory");
	s[5] = otf2w_string(w, "OpenMP");
	s[6] = otf2w_string(w, "transfers beside kernels");
	s[7] = otf2w_string(w, "1 while a transfer and a kernel of this device are both in flight, else 0");
	s[8] = otf2w_string(w, "#");
	for (int i = 0; i < OTF2W_MAX_FINDINGS; i++) {
		char name[32];
		snprintf(name, sizeof(name), i ? "finding %d" : "finding", i + 1);
		names[2 * i] = otf2w_string(w, name);
		snprintf(name, sizeof(name), i ? "finding %d kind" : "finding kind", i + 1);
		names[2 * i + 1] = otf2w_string(w, name);
	}
	if (w->oom)
		return -1;
	/* The strings first: the others name them. */
	for (size_t i = 0; i < w->nstrings && !rc; i++)
		rc = check(w, OTF2_GlobalDefWriter_WriteString(d, (OTF2_StringRef)i, w->strings[i]));
	rc = rc || check(w, OTF2_GlobalDefWriter_WriteParadigm(d, OTF2_PARADIGM_OPENMP, s[5],
								 OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN));
	for (int i = 0; i < OTF2W_MAX_FINDINGS && !rc; i++)
		rc = check(w, OTF2_GlobalDefWriter_WriteAttribute(d, OTF2W_ATTR_FINDING(i), names[2 * i], s[0],
								   OTF2_TYPE_UINT32)) ||
		     check(w, OTF2_GlobalDefWriter_WriteAttribute(d, OTF2W_ATTR_KIND(i), names[2 * i + 1], s[1],
								   OTF2_TYPE_STRING));
	rc = rc || check(w, OTF2_GlobalDefWriter_WriteMetricMember(d, member, s[2], s[2], OTF2_METRIC_TYPE_OTHER,
								     OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64,
								     OTF2_BASE_BINARY, 0, s[3]));
	rc = rc || check(w, OTF2_GlobalDefWriter_WriteMetricClass(d, OTF2W_METRIC, 1, &member,
								    OTF2_METRIC_ASYNCHRONOUS,
								    OTF2_RECORDER_KIND_ABSTRACT));
	rc = rc || check(w, OTF2_GlobalDefWriter_WriteMetricMember(d, overlap, s[6], s[7], OTF2_METRIC_TYPE_OTHER,
								     OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64,
								     OTF2_BASE_DECIMAL, 0, s[8]));
	rc = rc || check(w, OTF2_GlobalDefWriter_WriteMetricClass(d, OTF2W_METRIC_OVERLAP, 1, &overlap,
								    OTF2_METRIC_ASYNCHRONOUS,
								    OTF2_RECORDER_KIND_ABSTRACT));
	return rc;
}

/* Every location a rank of one communicator (rank = location id), and its window.  0 or -1. */
static int write_comm(struct otf2w *w, OTF2_GlobalDefWriter *d)
{
	uint32_t name = otf2w_string(w, "OpenMP target memory");
	uint64_t *members;
	int rc;

	if (!(members = malloc((w->nlocs ? w->nlocs : 1) * sizeof(*members)))) {
		w->oom = 1;
		return -1;
	}
	for (size_t i = 0; i < w->nlocs; i++)
		members[i] = i;
	rc = check(w, OTF2_GlobalDefWriter_WriteGroup(d, 0, name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
						      OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
						      (uint32_t)w->nlocs, members)) ||
	     check(w, OTF2_GlobalDefWriter_WriteGroup(d, 1, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
						      OTF2_GROUP_FLAG_NONE, (uint32_t)w->nlocs, members)) ||
	     check(w, OTF2_GlobalDefWriter_WriteComm(d, 0, name, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE)) ||
	     check(w, OTF2_GlobalDefWriter_WriteRmaWin(d, OTF2W_WIN, name, 0, OTF2_RMA_WIN_FLAG_NONE));
	free(members);
	return rc;
}

static int write_defs(struct otf2w *w, OTF2_GlobalDefWriter *d, uint64_t offset, uint64_t length,
		      uint64_t realtime_ns)
{
	int rc = check(w, OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000ULL, offset, length,
									realtime_ns));

	rc = rc || write_fixed(w, d);
	for (size_t i = 0; i < w->nnodes && !rc; i++)
		rc = check(w, OTF2_GlobalDefWriter_WriteSystemTreeNode(d, (uint32_t)i, w->nodes[i].name,
									w->nodes[i].class_name,
									w->nodes[i].parent == OTF2W_NONE
									? OTF2_UNDEFINED_SYSTEM_TREE_NODE
									: w->nodes[i].parent));
	for (size_t i = 0; i < w->ngroups && !rc; i++)
		rc = check(w, OTF2_GlobalDefWriter_WriteLocationGroup(
				      d, (uint32_t)i, w->groups[i].name,
				      w->groups[i].type == OTF2W_PROCESS ? OTF2_LOCATION_GROUP_TYPE_PROCESS
									 : OTF2_LOCATION_GROUP_TYPE_ACCELERATOR,
				      w->groups[i].node,
				      w->groups[i].creator == OTF2W_NONE ? OTF2_UNDEFINED_LOCATION_GROUP
									 : w->groups[i].creator));
	for (size_t i = 0; i < w->nlocs && !rc; i++)
		rc = check(w, OTF2_GlobalDefWriter_WriteLocation(d, i, w->locs[i].name, (OTF2_LocationType)w->locs[i].type,
								  w->locs[i].events, w->locs[i].group));
	rc = rc || write_comm(w, d);
	for (size_t i = 0; i < w->nregions && !rc; i++) {
		const struct region *r = &w->regions[i];
		rc = check(w, OTF2_GlobalDefWriter_WriteRegion(d, (uint32_t)i, r->name, r->name, OTF2_UNDEFINED_STRING,
								(OTF2_RegionRole)r->role, (OTF2_Paradigm)r->paradigm,
								OTF2_REGION_FLAG_NONE, r->file, r->line, r->line));
	}
	return rc;
}

/*
 * Each location's event file from its lane, one writer open at a time,
 * then each location's (empty) local definitions.  0 or -1.
 */
static int close_events(struct otf2w *w)
{
	struct lanefile_reader *r = malloc(sizeof(*r));
	int rc = 0;

	if (!r) {
		w->oom = 1;
		return -1;
	}
	if (lanefile_finish(w->events) < 0)
		rc = spool_failed(w, "write");
	for (size_t i = 0; i < w->nlocs && !rc; i++)
		rc = replay(w, (uint32_t)i, r);
	free(r);
	rc = check(w, OTF2_Archive_CloseEvtFiles(w->ar)) || rc;
	if (rc || check(w, OTF2_Archive_OpenDefFiles(w->ar)))
		return -1;
	for (size_t i = 0; i < w->nlocs && !rc; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->ar, i);
		rc = !dw ? check(w, OTF2_ERROR_INVALID) : check(w, OTF2_Archive_CloseDefWriter(w->ar, dw));
	}
	return rc || check(w, OTF2_Archive_CloseDefFiles(w->ar)) ? -1 : 0;
}

static void free_all(struct otf2w *w)
{
	for (size_t i = 0; i < w->nstrings; i++)
		free(w->strings[i]);
	free(w->strings);
	hmap_release(&w->string_refs);
	free(w->nodes);
	free(w->groups);
	free(w->locs);
	free(w->regions);
	free(w->why);
	lanefile_free(w->events);
	if (w->attrs)
		OTF2_AttributeList_Delete(w->attrs);
	if (current == w)
		current = NULL;
	free(w);
}

int otf2w_close(struct otf2w *w, uint64_t offset, uint64_t length, uint64_t realtime_ns, char **err)
{
	OTF2_GlobalDefWriter *d;
	int rc = w->oom || w->failed != OTF2_SUCCESS ? -1 : close_events(w);

	if (!rc) {
		d = OTF2_Archive_GetGlobalDefWriter(w->ar);
		rc = !d ? check(w, OTF2_ERROR_INVALID) : write_defs(w, d, offset, length, realtime_ns);
		if (d)
			rc = check(w, OTF2_Archive_CloseGlobalDefWriter(w->ar, d)) || rc;
	}
	rc = check(w, OTF2_Archive_Close(w->ar)) || rc;
	w->ar = NULL;
	if (rc && (w->oom && w->failed == OTF2_SUCCESS ? !(*err = strdup("out of memory"))
			  : asprintf(err, "%s", w->why ? w->why : OTF2_Error_GetDescription(w->failed)) < 0))
		*err = NULL;
	free_all(w);
	return rc ? -1 : 0;
}

void otf2w_abort(struct otf2w *w)
{
	if (!w)
		return;
	if (w->ar)
		OTF2_Archive_Close(w->ar);
	free_all(w);
}
