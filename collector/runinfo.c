/*
 * runinfo.c - what the run is: command line, directory, process, host, start
 * time and the OpenMP settings in the environment.
 *
 * This runs inside the program at the tool's start, so it avoids what costs
 * there: no stdio and no malloc (a FILE and its buffer went on the program's
 * heap), no gmtime_r (its first call reads /etc/localtime), no snprintf.
 * The command line comes from the argv the loader hands to our constructor,
 * as the bytes /proc/self/cmdline would give; the file is read only when
 * those bytes may differ (see argv_region()).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "collector/output.h"
#include "collector/runinfo.h"
#include "collector/state.h"
#include "collector/text.h"
#include "lib/utf8.h"

extern char **environ;

/*
 * A growing string off the program's heap: it starts in the caller's
 * (stack) buffer and moves to mmap'ed pages if it outgrows it.  p is NULL
 * after a failed growth.
 */
struct mbuf {
	char *p;
	size_t len, cap;
	int mapped;
};

static void mb_put(struct mbuf *b, const char *s, size_t n)
{
	if (!b->p)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = ((b->len + n + 1) * 2 + 4095) & ~(size_t)4095;
		char *np = mmap(NULL, ncap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (np == MAP_FAILED) {
			if (b->mapped)
				munmap(b->p, b->cap);
			b->p = NULL;
			return;
		}
		memcpy(np, b->p, b->len);
		if (b->mapped)
			munmap(b->p, b->cap);
		b->p = np;
		b->cap = ncap;
		b->mapped = 1;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void mb_release(struct mbuf *b)
{
	if (b->p && b->mapped)
		munmap(b->p, b->cap);
	b->p = NULL;
}

/*
 * /proc/self/cmdline's bytes (NUL-terminated arguments) as a JSON array of
 * strings, fed in pieces: an argument, and a UTF-8 sequence, may span two
 * pieces.  JSON holds only UTF-8 (a parser refuses the whole array for one
 * bad byte, and the command was lost): a byte that is not part of valid
 * UTF-8 is written as \u00XX, the character of its value (lib/utf8.h), so
 * that every byte of the command stays in it.
 */
struct cmd_json {
	struct mbuf *out;
	int nargs;
	int open;                 /* inside an argument's string */
	unsigned char pend[4];    /* the start of a UTF-8 sequence not yet whole */
	int npend;
};

/* Byte c >= 0x80 that is not part of valid UTF-8, as \u00XX. */
static void cj_byte(struct cmd_json *cj, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
	mb_put(cj->out, esc, sizeof(esc));
}

/* The pending bytes turned out to start no valid sequence: each on its own. */
static void cj_unpend(struct cmd_json *cj)
{
	for (int k = 0; k < cj->npend; k++)
		cj_byte(cj, cj->pend[k]);
	cj->npend = 0;
}

static void cj_bytes(struct cmd_json *cj, const char *s, size_t n)
{
	char esc[8];

	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (cj->npend) {
			if (!utf8_seq_next(cj->pend[0], cj->npend, c)) {
				cj_unpend(cj);
				continue;   /* c again, on its own */
			}
			cj->pend[cj->npend++] = c;
			i++;
			if (cj->npend == utf8_seq_len(cj->pend[0])) {
				mb_put(cj->out, (const char *)cj->pend, (size_t)cj->npend);
				cj->npend = 0;
			}
			continue;
		}
		if (!cj->open) {
			if (cj->nargs++)
				mb_put(cj->out, ",", 1);
			mb_put(cj->out, "\"", 1);
			cj->open = 1;
		}
		size_t j = i;
		while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] < 0x80 && s[j] != '"' &&
		       s[j] != '\\')
			j++;
		mb_put(cj->out, s + i, j - i);  /* a run that needs no escape */
		i = j;
		if (i == n)
			break;
		c = (unsigned char)s[i];
		if (c == 0) {
			mb_put(cj->out, "\"", 1);
			cj->open = 0;
		} else if (c < 0x80) {
			mb_put(cj->out, esc, json_escape(c, esc));
		} else if (utf8_seq_len(c)) {
			cj->pend[0] = c;   /* whole or not: the next bytes say */
			cj->npend = 1;
		} else {
			cj_byte(cj, c);
		}
		i++;
	}
}

/*
 * The argument strings as exec laid them out: [begin, end) back to back,
 * each NUL-terminated, followed by the environment strings.  Taken at load
 * time (glibc passes argc/argv/envp to the constructors of preloaded and
 * dlopen'ed libraries alike); NULL when the layout is not that one, e.g.
 * the program had changed its argv before the tool was loaded.
 */
static const char *argv_begin, *argv_end;

__attribute__((constructor)) static void argv_region(int argc, char **argv, char **envp)
{
	const char *end;

	if (argc <= 0 || !argv || !argv[0])
		return;
	end = argv[0];
	for (int i = 0; i < argc; i++) {
		if (argv[i] != end)
			return;
		end += strlen(end) + 1;
	}
	if (argv[argc] || !envp || envp[0] != end)
		return;
	argv_begin = argv[0];
	argv_end = end;
}

/* The command line as a JSON array, appended to out. */
static void command_json(struct mbuf *out)
{
	struct cmd_json cj = { .out = out };
	char chunk[512];
	ssize_t n;
	int fd;

	mb_put(out, "[", 1);
	/*
	 * /proc/self/cmdline is the memory [arg_start, arg_end) of the process,
	 * which is argv_region() when that was found; the kernel reads on into
	 * the environment only when the last byte is no longer a NUL
	 * (setproctitle), and then so does the file here.
	 */
	if (argv_begin && argv_end[-1] == 0) {
		cj_bytes(&cj, argv_begin, (size_t)(argv_end - argv_begin));
	} else if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) >= 0) {
		while ((n = read(fd, chunk, sizeof(chunk))) > 0)
			cj_bytes(&cj, chunk, (size_t)n);
		close(fd);
	}
	cj_unpend(&cj);
	if (cj.open)
		mb_put(out, "\"", 1);
	mb_put(out, "]", 1);
}

/* Put the n-digit decimal form of v (zero-padded) at p; return p + n. */
static char *put_digits(char *p, unsigned v, int n)
{
	for (int i = n - 1; i >= 0; i--, v /= 10)
		p[i] = (char)('0' + v % 10);
	return p + n;
}

/*
 * t as "YYYY-MM-DDTHH:MM:SSZ" (UTC), what strftime("%Y-%m-%dT%H:%M:%SZ") of
 * gmtime_r gives for years 1970 to 9999 (days to civil date: H. Hinnant's
 * algorithm).
 */
static void utc_iso8601(time_t t, char out[21])
{
	int64_t days = t / 86400, secs = t % 86400;
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = (int64_t)yoe + era * 400 + (m <= 2);
	char *p = out;

	p = put_digits(p, (unsigned)y, 4);
	*p++ = '-';
	p = put_digits(p, m, 2);
	*p++ = '-';
	p = put_digits(p, d, 2);
	*p++ = 'T';
	p = put_digits(p, (unsigned)(secs / 3600), 2);
	*p++ = ':';
	p = put_digits(p, (unsigned)(secs / 60 % 60), 2);
	*p++ = ':';
	p = put_digits(p, (unsigned)(secs % 60), 2);
	*p++ = 'Z';
	*p = 0;
}

/* Whether s starts with p (inline: most of the environment fails at the first byte). */
static int has_prefix(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return 0;
	return 1;
}

int runinfo_record(const char *runtime_version)
{
	/*
	 * Most command lines fit cmd_first; longer ones move to mmap'ed pages.
	 * Not larger: each stack page the tool's start touches for the first
	 * time is a page fault (~1 us).
	 */
	char cwd[4096], host[256], start[21], cmd_first[1024];
	struct mbuf cmd = { cmd_first, 0, sizeof(cmd_first), 0 };
	struct timespec ts;
	int rc;

	command_json(&cmd);
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	utc_iso8601(ts.tv_sec, start);

	rc = output_frame(SPOOL_RUN, cmd.p, cwd, (int64_t)getpid(), host, start, collector_start_ns,
			  runtime_version, MAPPROF_VERSION);
	mb_release(&cmd);
	for (char **e = environ; rc == 0 && e && *e; e++) {
		if (!has_prefix(*e, "OMP_") && !has_prefix(*e, "LIBOMPTARGET_") &&
		    !has_prefix(*e, "KMP_") && !has_prefix(*e, "MAPPROF_"))
			continue;
		const char *eq = *e;
		while (*eq && *eq != '=')
			eq++;
		if (!*eq)
			continue;
		char name[256];
		size_t n = (size_t)(eq - *e) < sizeof(name) - 1 ? (size_t)(eq - *e) : sizeof(name) - 1;
		memcpy(name, *e, n);
		name[n] = 0;
		rc = output_frame(SPOOL_ENV, name, eq + 1);
	}
	return rc;
}
