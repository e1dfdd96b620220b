/*
 * findings.h - occurrences grouped the way a user thinks about them, with
 * stable fingerprints and the time fixing each would give back.
 *
 * A finding is every occurrence of one kind and flavour that shares its
 * source location(s) (the code pointers of the redundant operations: both
 * legs of a round trip, the allocation of an allocation finding), its host
 * data (address and size) and its devices.  findings_add() is the
 * occurrence_fn the detectors call; findings_finish() orders the findings,
 * numbers them, fingerprints them and computes the savings.
 *
 * Savings: a finding saves what its operations cost, each priced by what
 * an operation of its class and size costs in this run (report/findings/cost.h:
 * a median or a trimmed mean over the run's own operations, so that one slow transfer does
 * not make the prediction of one recording differ from the next), times
 * the share of their own times that does not overlap (the union of their
 * intervals over the sum of their durations: 1 when they ran one after
 * another, less where threads or nowait overlapped them).  Without a cost
 * model an operation is priced at its own time, and the savings are the
 * union of the intervals.  The total counts each operation once even when
 * it is in several findings (a transfer can be a duplicate and the leg of
 * a round trip) and never exceeds the run's duration.  Predicted speedup =
 * duration / (duration - savings).
 *
 * Fingerprints identify a finding across runs: a 64-bit FNV-1a, in hex, of
 * the kind, flavour, module-relative locations ("prog+0x1234"), the host data
 * (module-relative when it is a global, else only its size: heap and stack
 * addresses change between runs) and the devices (the host as "host").  Two
 * findings of one run with the same material get "-2", "-3"... in the order
 * of their data's host address (which buffer), not in report order.
 */
#ifndef MAPPROF_REPORT_FINDINGS_H
#define MAPPROF_REPORT_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "db/read/events.h"
#include "lib/hmap.h"
#include "report/detect/occurrence.h"
#include "report/findings/cost.h"

#define FINDING_MAX_LOCATIONS 8

/* One operation of a finding, as the sweeps take it. */
struct finding_op {
	int64_t seq;
	int64_t begin_ns;
	int64_t end_ns;
	uint32_t occurrence;          /* 0-based index of its occurrence in the finding */
	uint32_t role;                /* enum op_role */
	uint32_t first_copy;          /* a copy into fresh device memory (cost.h) */
};

/* The smallest seqs of a finding's operations kept for the reports. */
#define FINDING_MAX_EVENTS 1000

struct finding {
	int id;                       /* 1.. in output order (after finish) */
	enum finding_kind kind;
	enum flavour flavour;
	char fingerprint[24];
	uint64_t occurrences;
	uint64_t bytes;               /* sum of the occurrences' bytes */
	int64_t savings_ns;
	int64_t union_ns;             /* savings_ns before the cap at the duration */
	int ndevices;
	int devices[2];
	uint64_t data_addr, data_bytes;
	int attach;                   /* the occurrences' (occurrence.h): part of the group's key */
	int nkey;                     /* code pointers that define the group */
	uint64_t key[2];
	int nlocations;               /* every code pointer seen, key ones first */
	uint64_t locations[FINDING_MAX_LOCATIONS];
	int norigins;                 /* duplicates: where the content came first */
	uint64_t origins[FINDING_MAX_LOCATIONS];
	int64_t first_seq;            /* smallest seq of its operations */
	int64_t est_ns[ROLE_COUNT];   /* the price of one operation of each role; -1: its own time */
	int64_t est_first_ns[ROLE_COUNT];  /* the same for a first copy into fresh device memory */
	uint64_t first_copies;        /* its operations that were such copies */
	int priced_other_size;        /* an unused transfer priced from warm copies of other sizes (1),
					 or, with none in the run, from first copies (2) */
	/*
	 * Its operations are in the findings' store (struct findings 'ops'),
	 * never here: a finding of a long run has millions.  Kept: how many,
	 * the first in (begin_ns, seq) order, how many distinct seqs (after
	 * finish), and the FINDING_MAX_EVENTS + 1 smallest distinct seqs.
	 */
	size_t nops;
	int64_t first_op_seq;         /* -1 when it has none */
	uint64_t nevents;
	int64_t *events;
	size_t nkept, kept_cap;
	uint32_t slot;                /* its index when created (the store's tag) */
};

struct kind_summary {
	uint64_t findings;
	uint64_t occurrences;
	uint64_t bytes;
	int64_t savings_ns;           /* union over the kind's operations */
};

struct opspill;
struct finish_pass;

struct findings {
	struct finding *v;
	size_t n, cap;
	struct hmap index;            /* group key -> position in v (until finish) */
	struct opspill *ops;          /* every finding's operations (opspill.h) */
	size_t buffer_ops;            /* operations held in memory (0: the default) */
	size_t *pos_of_slot;          /* after finish: slot -> position in v */
	/*
	 * After findings_merge_sites(): every slot ever made (nslots), the
	 * slot each was merged into (itself when kept) and the number its
	 * occurrences start from there.  NULL when nothing was merged.
	 */
	size_t nslots;
	uint32_t *slot_to;
	uint64_t *occ_base;
	struct finish_pass *finishing;  /* between findings_finish_begin() and _end() */
	struct kind_summary kinds[FINDING_KIND_COUNT];
	int64_t duration_ns;
	int64_t savings_ns;           /* all kinds, each operation once, capped */
	double predicted_speedup;     /* 0 when unbounded (savings == duration > 0) */
};

void findings_init(struct findings *f);
void findings_release(struct findings *f);

/* An occurrence_fn: 'arg' is the struct findings.  -1 when out of memory. */
int findings_add(void *arg, const struct occurrence *occ);

/*
 * One finding per directive: findings that differ only in call sites of
 * the same directive (pairs: {code pointer, the directive's first code
 * pointer}, sorted by the first, as attribute_run() gives them) become one,
 * keyed by the directive's first call sites and listing every call site it
 * met.  Between the detectors' last findings_add() and findings_finish().
 * 0, or -1 when out of memory (then f is fit only for findings_release()).
 */
int findings_merge_sites(struct findings *f, const uint64_t (*pairs)[2], size_t n);

/* The directive's first call site of 'codeptr' (pairs as above), or codeptr itself. */
uint64_t findings_site_of(const uint64_t (*pairs)[2], size_t n, uint64_t codeptr);

/* Whether seq is among v[0..n) (ascending; v may be NULL when n is 0). */
int seq_listed(const int64_t *v, size_t n, int64_t seq);

struct findings_context {
	const struct run_module *modules;
	size_t nmodules;
	int host_device;
	int64_t duration_ns;          /* wall time of the run */
	const struct cost_model *cost;  /* after cost_finish(); NULL: each operation's own time */
};

/* Order, number, fingerprint, compute savings.  0, or -1 when out of memory. */
int findings_finish(struct findings *f, const struct findings_context *ctx);
/*
 * findings_finish() in steps, so that a pass made anyway over the
 * findings' operations (findings_store()'s) also sums their savings:
 * _begin() orders, numbers, prices and fingerprints them; then
 * findings_finish_op() (a findings_each_op() callback, 'arg' f) is given
 * each operation in findings_each_op()'s order; _end(f, fed) sums the
 * savings, event counts and first operations, from those operations when
 * 'fed' (every one was given, exactly once), else in a pass of its own
 * (what was given is forgotten).  _end() after _end() does nothing.
 * 0, or -1 when out of memory.
 */
int findings_finish_begin(struct findings *f, const struct findings_context *ctx);
int findings_finish_op(void *arg, size_t pos, const struct finding_op *op);
int findings_finish_end(struct findings *f, int fed);

/*
 * The module holding 'addr' (its basename, borrowed from 'modules') and the
 * offset from its load bias; NULL when no module holds it.
 */
const char *module_locate(const struct run_module *modules, size_t n, uint64_t addr,
			  uint64_t *offset);

/* Union of the intervals of these operations, sorted by (begin_ns, seq). */
int64_t ops_union_ns(const struct finding_op *ops, size_t n);

/* An operation with its price (struct finding's est_ns; -1: its own time). */
struct priced_op {
	struct finding_op op;
	int64_t est_ns;
};

/*
 * What these operations, sorted by (begin_ns, seq), save: their prices
 * times the share of their time that does not overlap (the header's
 * "Savings"); each operation once.
 */
int64_t priced_ops_ns(const struct priced_op *ops, size_t n);

/*
 * For each set k < nsets of findings (finding i is in set set_of[i], or in
 * none: SIZE_MAX), out[k]: the union of the intervals of the operations
 * that fixing the set's findings removes (finding_op_saved()), each
 * operation once however many of them hold it.  After findings_finish();
 * one pass over the store of operations for all the sets that have several
 * findings with operations (a set of one takes that finding's union_ns).
 * 0, or -1 when out of memory or the store cannot be read.
 */
int findings_unions_ns(const struct findings *f, const size_t *set_of, size_t nsets, int64_t *out);

/*
 * findings_unions_ns() in steps, for a pass over the operations made
 * anyway (findings_store()'s): begin (NULL when out of memory); when
 * findings_unions_need_ops(), findings_unions_op() (a findings_each_op()
 * callback, 0) for every operation in that order; then end, which fills
 * out[] and frees u.  findings_unions_free() gives one up.
 */
struct unions;
struct unions *findings_unions_begin(const struct findings *f, const size_t *set_of, size_t nsets);
int findings_unions_need_ops(const struct unions *u);
int findings_unions_op(void *u, size_t pos, const struct finding_op *op);
void findings_unions_end(struct unions *u, int64_t *out);
void findings_unions_free(struct unions *u);

/*
 * 1 when fixing finding 'g' makes 'op' (one of g's operations) go away, so
 * that its time counts in the savings.  Every operation does, except the
 * send of a host->device->host round trip: its natural fix (map(to:) for
 * map(tofrom:)) still sends the data, and removes only the return.  The
 * report still lists the send among the occurrence's operations.
 */
int finding_op_saved(const struct finding *g, const struct finding_op *op);

/*
 * Fill out[i] (room for f->v[i].nops, NULL to skip it) with the operations
 * of f->v[i] that finding_op_saved() counts, in (begin_ns, seq) order, with
 * their prices, and n[i] with how many: one pass for all findings.  (For
 * 'mapprof diff': memory per operation.)  0, or -1 when the store cannot
 * be read.
 */
int findings_saved_ops(const struct findings *f, struct priced_op **out, size_t *n);

/*
 * Call fn for every operation of every finding, in (begin_ns, seq) order
 * (after findings_finish()); its finding is f->v[pos].  Stops at fn's
 * non-zero return and returns it; -1 when the store cannot be read.
 */
/*
 * The savings of sets of findings that may share findings (a fix plan's
 * findings include another directive's that its patch removes too): set
 * k's are the union of the operations of the findings in it, priced, each
 * once; with only[k] (ascending seqs; NULL: all), only those operations
 * (what a patch removes: a round trip it ends by removing one leg keeps the
 * other); its kept operations (keep[k], nkeep[k] ascending seqs; NULL:
 * none) summed apart into left[k].  Finding i is in sets[start[i]] ..
 * sets[start[i + 1] - 1].  One pass over the operations.  0, or -1 when
 * out of memory or the store cannot be read.
 */
int findings_sets_ns(const struct findings *f, const size_t *start, const size_t *sets, size_t nsets,
		     const int64_t *const *keep, const size_t *nkeep, const int64_t *const *only,
		     const size_t *nonly, int64_t *out, int64_t *left);

int findings_each_op(const struct findings *f,
		     int (*fn)(void *arg, size_t pos, const struct finding_op *op), void *arg);

#endif
