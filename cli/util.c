/*
 * util.c - messages and small helpers shared by the subcommands.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/grow.h"
#include "lib/shquote.h"
#include "lib/termesc.h"

/*
 * One line on stderr.  The message quotes paths, names and error texts that
 * come from the user, a database or the system: all of it is escaped for the
 * terminal (lib/termesc.h), a newline in it included, so that it stays one
 * line and can neither retitle nor clear the terminal.
 */
__attribute__((format(printf, 2, 0)))
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	fprintf(stderr, "mapprof: %s", prefix);
	termesc_fputs(text ? text : "(out of memory)", stderr, 0);
	fputc('\n', stderr);
	free(text);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
	return EXIT_ERROR;
}

void hint(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("hint: ", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
	fprintf(stderr, "mapprof: hint: see 'mapprof %s%s--help'\n", cmd && *cmd ? cmd : "", cmd && *cmd ? " " : "");
	return EXIT_USAGE;
}

char *shell_quoted(const char *path)
{
	size_t n = shquote(NULL, 0, path);
	char *out = malloc(n + 1);

	if (out)
		shquote(out, n + 1, path);
	return out;
}

char *exe_dir(void)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return NULL;
	path[n] = 0;
	return strdup(dirname(path));
}

/* The file the program's name runs: a path as it is, else the first match in PATH. */
static int program_stat(const char *prog, struct stat *st)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return stat(prog, st);
	if (!path || !*path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, path, n ? "/" : "", prog);
		if (stat(buf, st) == 0 && S_ISREG(st->st_mode) && access(buf, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

const char *output_refusal(const char *path, char *const *argv)
{
	static const char sqlite_magic[16] = "SQLite format 3";   /* and its NUL */
	struct stat st, other;
	unsigned char head[16] = { 0 };
	int fd, database;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		if (read(fd, head, sizeof(head)) < 0)
			head[0] = 0;
		close(fd);
	}
	/*
	 * A database is never run, whatever its mode says (on vfat, drvfs or
	 * CIFS every file is 0777), and an earlier recording the program reads
	 * is what -f replaces; only the program itself is never one.
	 */
	database = !memcmp(head, sqlite_magic, sizeof(sqlite_magic));
	for (size_t i = 0; argv && argv[i]; i++) {
		int found = i ? stat(argv[i], &other) == 0 : program_stat(argv[i], &other) == 0;
		if (found && other.st_dev == st.st_dev && other.st_ino == st.st_ino && (!i || !database))
			return i ? "the program's argument names it" : "it is the program to record";
	}
	if (database)
		return NULL;
	if (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))
		return "it is an executable file";
	if (!memcmp(head, "\177ELF", 4))
		return "it is an ELF file (a program or a library)";
	if (head[0] == '#' && head[1] == '!')
		return "it is a script";
	return NULL;
}

char *replace_target(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (real = realpath(path, NULL)))
		return real;
	return strdup(path);
}

int help_out(const char *text)
{
	errno = 0;
	if ((fputs(text, stdout) != EOF && fflush(stdout) == 0) || errno == EPIPE)
		return 0;
	error("cannot write to standard output: %s", errno ? strerror(errno) : "write error");
	clearerr(stdout);  /* said once, not again at exit */
	return EXIT_ERROR;
}

int make_parent_dirs(const char *path)
{
	char *copy = strdup(path), *dir;
	int rc = 0;

	if (!copy)
		return error("out of memory");
	dir = dirname(copy);
	if (strcmp(dir, ".") && strcmp(dir, "/") && access(dir, F_OK) != 0) {
		/* Each missing level, top down. */
		for (char *p = dir + 1; ; p++) {
			if (*p && *p != '/')
				continue;
			char c = *p;
			*p = 0;
			if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
				rc = error("cannot create the directory '%s': %s", dir, strerror(errno));
				break;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	free(copy);
	return rc;
}

/* A file name scandir() keeps from a directory of databases: NAME.db (not a journal, a spool, a dot file). */
static int is_db_name(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return e->d_name[0] != '.' && n > 3 && !strcmp(e->d_name + n - 3, ".db");
}

/* Append path (taken) to dbs: 0, or an exit status (path freed). */
static int add_db(char *path, char ***dbs, size_t *n, size_t *cap, int quiet)
{
	if (!path || grow_one((void **)dbs, cap, *n, sizeof(**dbs)) < 0) {
		free(path);
		return quiet ? EXIT_ERROR : error("out of memory");
	}
	(*dbs)[(*n)++] = path;
	return 0;
}

/* Append dir/NAME for each *.db regular file of dir, in version order.  0, or an exit status. */
static int add_dir(const char *dir, char ***dbs, size_t *n, size_t *cap, int quiet)
{
	struct dirent **names = NULL;
	int k = scandir(dir, &names, is_db_name, versionsort), status = 0;
	size_t before = *n;

	if (k < 0)
		return quiet ? EXIT_ERROR : error("cannot read directory '%s': %s", dir, strerror(errno));
	for (int i = 0; i < k; i++) {
		struct stat st;
		char *path = NULL;
		if (!status && asprintf(&path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
					names[i]->d_name) < 0)
			status = quiet ? EXIT_ERROR : error("out of memory");
		else if (!status && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			status = add_db(path, dbs, n, cap, quiet);
		else
			free(path);
		free(names[i]);
	}
	free(names);
	if (!status && *n == before)
		status = quiet ? EXIT_ERROR : error("directory '%s' holds no database (no regular file named *.db)", dir);
	return status;
}

int db_args_expand(char *const *args, int n, char ***out, int *nout, int quiet)
{
	char **dbs = NULL;
	size_t m = 0, cap = 0;
	int status = 0;

	for (int i = 0; i < n && !status; i++) {
		struct stat st;
		if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
			status = add_dir(args[i], &dbs, &m, &cap, quiet);
		else
			status = add_db(strdup(args[i]), &dbs, &m, &cap, quiet);
	}
	if (!status && m > INT_MAX)
		status = quiet ? EXIT_ERROR : error("too many databases (%zu)", m);
	if (status) {
		db_args_free(dbs, (int)(m > INT_MAX ? INT_MAX : m));
		return status;
	}
	*out = dbs;
	*nout = (int)m;
	return 0;
}

void db_args_free(char **dbs, int n)
{
	for (int i = 0; dbs && i < n; i++)
		free(dbs[i]);
	free(dbs);
}
