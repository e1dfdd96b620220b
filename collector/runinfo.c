/*
 * runinfo.c - what the run is: command line, directory, process, host, start
 * time and the OpenMP settings in the environment.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"

extern char **environ;

void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t ncap = (b->len + n + 1) * 2;
		char *np = realloc(b->p, ncap);
		if (!np)
			return;
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void sb_json_str(struct sbuf *b, const char *s, size_t n)
{
	sb_put(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			sb_put(b, esc, 2);
		} else if (c < 0x20) {
			sb_put(b, esc, (size_t)snprintf(esc, sizeof(esc), "\\u%04x", c));
		} else {
			sb_put(b, (const char *)&c, 1);
		}
	}
	sb_put(b, "\"", 1);
}

/* argv from /proc/self/cmdline as a JSON array (malloc'ed). */
static char *command_json(void)
{
	struct sbuf raw = { 0 }, out = { 0 };
	char chunk[4096];
	size_t n;
	FILE *f = fopen("/proc/self/cmdline", "r");

	if (f) {
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			sb_put(&raw, chunk, n);
		fclose(f);
	}
	sb_put(&out, "[", 1);
	for (size_t i = 0; i < raw.len; i += n + 1) {
		n = strnlen(raw.p + i, raw.len - i);
		if (i)
			sb_put(&out, ",", 1);
		sb_json_str(&out, raw.p + i, n);
	}
	sb_put(&out, "]", 1);
	free(raw.p);
	return out.p;
}

int runinfo_record(const char *runtime_version)
{
	char cwd[4096], host[256], start[64];
	struct timespec ts;
	struct tm tm;
	char *cmd = command_json();
	int rc;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", &tm);

	rc = output_frame(SPOOL_RUN, cmd, cwd, (int64_t)getpid(), host, start, collector_start_ns,
			  runtime_version, MAPPROF_VERSION);
	for (char **e = environ; rc == 0 && e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		if (strncmp(*e, "OMP_", 4) && strncmp(*e, "LIBOMPTARGET_", 13) &&
		    strncmp(*e, "KMP_", 4) && strncmp(*e, "MAPPROF_", 8))
			continue;
		char name[256];
		size_t n = (size_t)(eq - *e) < sizeof(name) - 1 ? (size_t)(eq - *e) : sizeof(name) - 1;
		memcpy(name, *e, n);
		name[n] = 0;
		rc = output_frame(SPOOL_ENV, name, eq + 1);
	}
	free(cmd);
	return rc;
}
