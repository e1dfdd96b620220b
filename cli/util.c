/*
 * util.c - messages and small helpers shared by the subcommands.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
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
