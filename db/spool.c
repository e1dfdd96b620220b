/*
 * spool.c - packing and unpacking spool frames (no SQLite here: the
 * collector links this file too).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "db/spool.h"

static const char *const formats[SPOOL_FRAME_TYPES] = {
	[SPOOL_RECORDS] = "",
	[SPOOL_RUN] = "ssississ",
	[SPOOL_ENV] = "ss",
	[SPOOL_STATUS] = "ss",
	[SPOOL_END] = "ii",
	[SPOOL_DEVICE] = "isii",
	[SPOOL_MODULE] = "siiisi",
	[SPOOL_THREAD] = "ii",
	[SPOOL_IMAGE] = "isiii",
	[SPOOL_SOURCE] = "isss",
	[SPOOL_CLOCK] = "ii",
	[SPOOL_PROCESS] = "iiiss",
};

const char *spool_frame_format(uint32_t type)
{
	return type < SPOOL_FRAME_TYPES ? formats[type] : NULL;
}

/* Copy n bytes at *off when they fit; *off always advances. */
static void put(unsigned char *buf, size_t cap, size_t *off, const void *src, size_t n)
{
	if (*off + n <= cap)
		memcpy(buf + *off, src, n);
	*off += n;
}

size_t spool_vpack(void *buf, size_t cap, uint32_t type, va_list ap)
{
	const char *fmt = spool_frame_format(type);
	struct spool_frame fr = { type, 0 };
	size_t off = sizeof(fr);

	if (!fmt)
		return 0;
	for (; *fmt; fmt++) {
		if (*fmt == 'i') {
			int64_t v = va_arg(ap, int64_t);
			put(buf, cap, &off, &v, sizeof(v));
		} else {
			const char *s = va_arg(ap, const char *);
			uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
			put(buf, cap, &off, &n, sizeof(n));
			if (s)
				put(buf, cap, &off, s, (size_t)n + 1);
		}
	}
	fr.len = (uint32_t)(off - sizeof(fr));
	put(buf, cap, &(size_t){ 0 }, &fr, sizeof(fr));
	return off;
}

size_t spool_pack(void *buf, size_t cap, uint32_t type, ...)
{
	va_list ap;
	size_t n;
	va_start(ap, type);
	n = spool_vpack(buf, cap, type, ap);
	va_end(ap);
	return n;
}

int spool_unpack(uint32_t type, const void *p, size_t len, struct spool_field *out)
{
	const char *fmt = spool_frame_format(type);
	const unsigned char *c = p;
	size_t off = 0;

	if (!fmt || strlen(fmt) > SPOOL_MAX_FIELDS)
		return -1;
	for (int k = 0; fmt[k]; k++) {
		out[k].i = 0;
		out[k].s = NULL;
		if (fmt[k] == 'i') {
			if (len - off < sizeof(int64_t))
				return -1;
			memcpy(&out[k].i, c + off, sizeof(int64_t));
			off += sizeof(int64_t);
			continue;
		}
		uint32_t n;
		if (len - off < sizeof(n))
			return -1;
		memcpy(&n, c + off, sizeof(n));
		off += sizeof(n);
		if (n == UINT32_MAX)
			continue;
		/* The bytes, then a NUL that must be there. */
		if (len - off < (size_t)n + 1 || c[off + n] != 0)
			return -1;
		out[k].s = (const char *)c + off;
		off += (size_t)n + 1;
	}
	return off == len ? 0 : -1;
}

int spool_tsc_usable(void)
{
#if defined(__x86_64__)
	char src[16] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, src, sizeof(src) - 1);
	close(fd);
	return n == 4 && !memcmp(src, "tsc\n", 4);
#else
	return 0;
#endif
}

void spool_clock_pair(int64_t *ticks, int64_t *ns)
{
	struct timespec ts;
#if defined(__x86_64__)
	uint64_t t0 = __rdtsc(), t1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = __rdtsc();
	*ticks = (int64_t)(t0 + (t1 - t0) / 2);
#else
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*ticks = 0;
#endif
	*ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
