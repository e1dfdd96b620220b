/*
 * report_cli.h - the report options 'mapprof report' and 'mapprof run' share.
 */
#ifndef MAPPROF_CLI_REPORT_CLI_H
#define MAPPROF_CLI_REPORT_CLI_H

#include "report/output/gate.h"

#define REPORT_CLI_MAX_GATES 16

struct report_cli {
	const char *json;   /* --json PATH */
	const char *html;   /* --html PATH */
	int no_json, no_html, quiet, top;
	int no_source;      /* --no-source */
	int check;          /* --check */
	const char *sarif;  /* --sarif PATH */
	const char *source_root;   /* --source-root DIR */
	struct gate gates[REPORT_CLI_MAX_GATES];   /* --fail-on SPEC, each */
	int ngates;
	const char *baseline;      /* --baseline DB ('report' only) */
	const char *const *same;   /* --same-program: the other recordings ('report', 'run --repeat') */
	int nsame;
	int program_status;        /* 'run': the program's exit status, which wins over the report's */
};

/* The exit status a report's closing line names: the program's ('run') when not 0, else 'status'. */
int report_cli_exit_shown(const struct report_cli *rc, int status);

/* The getopt_long entries (short codes: j H J N t q; S for --no-source, C for --check;
 * F for --fail-on, R for --source-root, s for --sarif). */
#define REPORT_CLI_LONGOPTS \
	{ "json", required_argument, NULL, 'j' }, \
	{ "html", required_argument, NULL, 'H' }, \
	{ "no-json", no_argument, NULL, 'J' }, \
	{ "no-html", no_argument, NULL, 'N' }, \
	{ "top", required_argument, NULL, 't' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "no-source", no_argument, NULL, 'S' }, \
	{ "check", no_argument, NULL, 'C' }, \
	{ "sarif", required_argument, NULL, 's' }, \
	{ "source-root", required_argument, NULL, 'R' }, \
	{ "fail-on", required_argument, NULL, 'F' }

/* The JSON and HTML paths 'rc' asks for (malloc'ed; NULL for none).  -1 when out of memory. */
int report_cli_outputs(const struct report_cli *rc, const char *db_path, char **json, char **html);

/* Take one parsed option into *rc; -1 when it is not one of these (or bad),
 * REPORT_CLI_REPORTED when it is bad and the error was said on stderr. */
#define REPORT_CLI_REPORTED (-2)
int report_parse_option(int c, const char *arg, struct report_cli *rc);

/*
 * Refuse outputs that would destroy: one that is the database db_path (or
 * its journal, WAL or spool), or two that are the same file (by device and
 * inode; "-" is standard output).  Says why on stderr; returns 0 or
 * EXIT_USAGE.  Reads nothing but the file system: call it before any work.
 */
int report_cli_check(const struct report_cli *rc, const char *db_path);

/* Report on db_path with these options (checked first, as above); prints
 * errors; returns an exit status. */
int report_cli_run(const struct report_cli *rc, const char *db_path);

/*
 * The lib/outfile.h flags for an output: OUTFILE_NOFOLLOW when the user gave
 * no path ('given' NULL) and 'path' is the default beside the database; a
 * symlink there is then replaced, never followed, and a note says so.
 */
unsigned report_cli_oflags(const char *given, const char *path);

/*
 * Say what report_run() wrote and what it could not ("mapprof: wrote 'P'",
 * one error line per output not written).  -1 when an output was not
 * written (the exit status is then EXIT_ERROR), else 0.
 */
struct report_result;
/* Say each line of 'lines' (newline-separated; the text is cut up) on stderr: the tripped --fail-on. */
void report_cli_say_lines(char *lines);

int report_cli_said_outputs(const struct report_result *res, const char *json, const char *html,
			    const char *sarif);

/* "<dirname of db_path>/<name>", malloc'ed. */
char *report_beside(const char *db_path, const char *name);

/*
 * 'mapprof report DB DB...': report each database, then merge the findings
 * across them (cli/report_procs.c).  Returns the exit status.
 */
int report_cli_run_many(const struct report_cli *rc, char **dbs, int n);

#endif
