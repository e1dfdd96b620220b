/*
 * report.h - 'mapprof report': read a recorded run, find the inefficient
 * data mapping patterns, store them in the database, print a summary and
 * write report.json (and report.html).
 *
 * The stages: db_read_run() and the event stream (db/read/events.h) feed the
 * detectors (report/detect/detect.h) and the run totals (report/findings/totals.h); the
 * occurrences are grouped into findings (report/findings/findings.h), stored
 * (report/findings/findings_store.h, as the rows of db/store/findings.h), rendered as JSON
 * (report/output/json.h, the document every other output is built from), as a
 * terminal summary (report/output/summary.h) and as HTML (report/output/html.h).
 */
#ifndef MAPPROF_REPORT_REPORT_H
#define MAPPROF_REPORT_REPORT_H

#include <stdint.h>

#include "db/db.h"
#include "db/read/events.h"
#include "report/findings/analysis.h"

struct db;
struct attribution;
struct gate;

struct report_options {
	const char *db_path;
	const char *json_path;   /* NULL: no JSON; "-": standard output */
	const char *html_path;   /* NULL: no HTML */
	int quiet;               /* no terminal summary */
	int top;                 /* findings listed in the summary; 0: 5 */
	int no_source;           /* quote no source lines (--no-source) */
	int check;               /* PRAGMA quick_check before reading */
	const char *sarif_path;  /* NULL: no SARIF log (report/output/sarif.h) */
	struct json_t **sarif_out; /* not NULL: the SARIF log is handed back here, not written
				      (several databases merge theirs); NULL when it cannot be made */
	const char *source_root; /* --source-root DIR; NULL: the files' common directory */
	const struct gate *gates;  /* --fail-on thresholds (report/output/gate.h) */
	int ngates;
	const char *baseline_path; /* --baseline DB: a "baseline" diff in the reports (report/compare/diff.h) */
	const char *const *same_paths; /* --same-program: other recordings of the program (report/compare/repeat.h) */
	int nsame;
	unsigned json_oflags;    /* OUTFILE_NOFOLLOW when json_path is the default beside the database */
	unsigned html_oflags;    /* the same for html_path */
};

/* What report_run() prints and writes, in that order. */
enum report_out { REPORT_OUT_SUMMARY, REPORT_OUT_JSON, REPORT_OUT_HTML, REPORT_OUT_SARIF,
		  REPORT_OUT_COUNT };

/* How 'mapprof report' went, beyond 0 / -1. */
struct report_result {
	enum db_problem problem; /* why the database was refused (DB_OK: it was not) */
	int incomplete;          /* the run's status is not 'complete': the outputs
				    cover what was recorded, and say so */
	char *tripped;           /* the --fail-on thresholds the findings are over, one
				    "SPEC: why" a line (malloc'ed); NULL: none */
	int wrote[REPORT_OUT_COUNT];     /* 1: this output was written whole */
	char *out_err[REPORT_OUT_COUNT]; /* why this output was not written (malloc'ed,
					    naming the path and strerror of the first
					    failed write); NULL: written, or not asked for */
	int not_stored;          /* the findings could not be stored in the database
				    (a warning said why): the outputs are written,
				    the database holds no findings of this report */
	int stdout_closed;       /* the summary's reader closed standard output
				    (EPIPE): the rest of the summary was not printed,
				    which is no error */
};

/* Free what *res holds (accepts a zeroed one). */
void report_result_release(struct report_result *res);

/*
 * The whole of 'mapprof report'.  Checks the database first (db_open()) and
 * writes nothing when it is refused.  Writes the findings and the source
 * attribution into the database when it can (else into a temporary copy,
 * and says so once on stderr), prints the summary on stdout (stderr when
 * the JSON goes to stdout) unless quiet, writes the requested files.
 * 0 once the run was analysed and its findings stored, or -1 with *err set
 * (malloc'ed message; nothing written).  An output that cannot be written
 * does not stop the others nor the database: res->out_err says which and
 * why, res->wrote which were written.  Release *res either way.
 */
int report_run(const struct report_options *opt, struct report_result *res, char **err);

#endif
