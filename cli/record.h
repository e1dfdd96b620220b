/*
 * record.h - 'mapprof record': run a program with the collector loaded.
 */
#ifndef MAPPROF_CLI_RECORD_H
#define MAPPROF_CLI_RECORD_H

struct record_options {
	const char *output;   /* database path; NULL = derived from the program name */
	int force;            /* overwrite an existing database */
	const char *max_spool; /* --max-spool SIZE, or NULL: MAPPROF_SPOOL_MAX, or the default */
	char **argv;          /* program and its arguments, NULL-terminated */
};

/*
 * Create the database, run the program with the collector, wait for it and
 * finish the database (exit status, delete/alloc pairing).  Prints where the
 * database is on stderr.  Returns 0 when the program ran (its status is in
 * *status: exit code, or 128+N when killed by signal N), or -1 when it could
 * not be started (*status is then 126, 127 or 3, the message already printed;
 * 127 with a database when the loader could not start it: it says why).
 * *db_path_out (if not NULL) receives a malloc'ed copy of the database path
 * (NULL when the program itself offloaded nothing and only the processes it
 * started did: mpirun, a shell); *others_out (if not NULL) the databases of
 * the command's other processes (malloc'ed array of *nothers malloc'ed paths).
 */
int record_program(const struct record_options *opt, int *status, char **db_path_out,
		   char ***others_out, size_t *nothers);

/* The default database name for a program: "<basename>.mapprof.db". malloc'ed. */
char *record_default_output(const char *program);

#endif
