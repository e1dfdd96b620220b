/*
 * checks.h - the findings of 'record --check' (docs/checks.md): mapping
 * bugs, a class of their own beside the waste kinds of findings.h.
 *
 * The collector found each occurrence while the program ran and named its
 * data operation (db/read/checks.h); here they are grouped: one check
 * finding per kind, call site, map entry (or host address), device and
 * direction, with the first occurrence's byte range and count.  Nothing is
 * priced: a bug costs correctness, not time.
 */
#ifndef MAPPROF_REPORT_CHECKS_H
#define MAPPROF_REPORT_CHECKS_H

#include <stddef.h>
#include <stdint.h>

struct db;

enum check_kind {
	CHECK_NEVER_WRITTEN,    /* a copy back of bytes the device never wrote */
	CHECK_LOST_HOST_WRITE,  /* host writes a copy back undid */
	CHECK_RACE,             /* host writes racing a nowait copy */
	CHECK_KIND_COUNT
};

struct check_finding {
	int id;                 /* 1.. in output order */
	enum check_kind kind;
	int device;
	int to_device;          /* the operation copied to the device (race on its source) */
	uint64_t codeptr;       /* the construct's call site */
	int map_index;          /* -1: none */
	int target_kind;        /* ompt_target_t of its construct, nowait folded in; 0: unknown */
	int64_t seq;            /* the first occurrence's operation */
	uint64_t host_addr;     /* the host start of that operation's range */
	uint64_t op_bytes;      /* that operation's bytes */
	uint64_t first, end;    /* the first occurrence's bytes [first, end) of that range */
	uint64_t bytes;         /* bytes found in it */
	uint64_t occurrences;
	uint64_t total_bytes;   /* bytes found over every occurrence */
};

struct check_findings {
	int ran;                /* recorded with the checks on */
	struct check_finding *v;
	size_t n;
	char **skipped;         /* a check that could not run, and why ("device N: ..."), malloc'ed */
	size_t nskipped;
};

/* Read and group the run's check rows into *c (zeroed first).  0, or -1 with *err set. */
int checks_load(struct db *db, struct check_findings *c, char **err);
void checks_release(struct check_findings *c);

/* "never_written", "lost_host_write", "race" (static). */
const char *check_kind_name(enum check_kind kind);
/* The SARIF rule id: "mapprof.check.never-written", ... (static). */
const char *check_rule_id(enum check_kind kind);
/* A short title: "Copy back of bytes the device never wrote", ... (static). */
const char *check_title(enum check_kind kind);

/*
 * What happened, in one sentence naming 'var' (the variable as the report
 * shows it; NULL: "the data"), the bytes and the device (malloc'ed; NULL
 * when out of memory).
 */
char *check_message(const struct check_finding *c, const char *var);
/* The fix, in one sentence (static). */
const char *check_fix(const struct check_finding *c);

#endif
