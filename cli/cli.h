/*
 * cli.h - the subcommands and the helpers they share.
 *
 * Each subcommand is 'int cmd_NAME(int argc, char **argv)' with argv[0] the
 * subcommand's name; its return value is the process exit status:
 * 0 ok, 1 findings over a --fail-on threshold, 2 usage, 3 bad input or
 * runtime error (always with a "mapprof: error:" line on stderr), 4 the
 * report covers an incomplete recording, 5 the report's findings could not
 * be stored in the database (a warning says why); 'record' and 'run' return the
 * profiled program's status (docs/usage.md, "Exit status").
 */
#ifndef MAPPROF_CLI_H
#define MAPPROF_CLI_H

#define EXIT_FAIL_ON 1
#define EXIT_USAGE 2
#define EXIT_ERROR 3
#define EXIT_INCOMPLETE 4
#define EXIT_NOT_STORED 5

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/*
 * The messages: one line each on stderr, escaped for the terminal as a whole
 * (lib/termesc.h: control characters from a path or a recorded name are
 * shown as \x1b, never sent).
 */
/* "mapprof: error: ..." on stderr.  Returns EXIT_ERROR. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "mapprof: hint: ..." on stderr. */
void hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "mapprof: ..." on stderr (information). */
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "mapprof: error: ..." plus "see 'mapprof CMD --help'".  Returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Why the existing file 'path' must never be replaced by a database, or NULL
 * when it may be (or does not exist): it is the program argv[0] runs (found
 * in PATH as the shell would), or, unless it is an SQLite database (which
 * may be replaced whatever its mode), a file one of argv's arguments names,
 * an executable, an ELF file or a script.  argv may be NULL.  Static text.
 */
const char *output_refusal(const char *path, char *const *argv);
/*
 * What -f renames the new database over: the file a symlink at 'path' leads
 * to, when it is a regular file (the link stays, as report's outputs given
 * by path), else 'path'.  malloc'ed; NULL when out of memory.
 */
char *replace_target(const char *path);

/*
 * 'path' quoted for a POSIX shell (lib/shquote.h), for a command in a hint
 * that a user pastes: malloc'ed, NULL when out of memory.
 */
char *shell_quoted(const char *path);

/*
 * Create the missing directories above the file 'path' ('run -o
 * results/app' into a results/ not made yet).  0, or EXIT_ERROR (said why).
 */
int make_parent_dirs(const char *path);

/* Directory holding the running mapprof binary (malloc'ed), or NULL. */
char *exe_dir(void);
/*
 * Print a command's help on standard output, flushed: 0, or EXIT_ERROR with
 * the write's own error said ('--help > /dev/full'); a reader that went away
 * (EPIPE) is no error.
 */
int help_out(const char *text);

/*
 * The databases named on a report's command line, a directory standing for
 * the *.db files in it, in version order (run.2.db before run.10.db): a job
 * of thousands of ranks is more than one command line holds (mpirun passes
 * its command to each rank in one string of at most 128 KiB).  *out (an
 * array of malloc'ed paths, freed by db_args_free()) and *nout; 0, or an
 * exit status (said why, unless 'quiet').
 */
int db_args_expand(char *const *args, int n, char ***out, int *nout, int quiet);
void db_args_free(char **dbs, int n);

#endif
