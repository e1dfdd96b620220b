/*
 * spool.c - packing and unpacking spool frames (no SQLite here: the
 * collector links this file too).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "db/spool/ring.h"
#include "db/spool/spool.h"

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
	[SPOOL_STAT] = "si",
	[SPOOL_CHECK] = "siiiiiis",
	[SPOOL_ACC] = "issisiiiiiis",
	[SPOOL_HASH_FIX] = "iiiiiiiii",
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

int spool_boot_id(char *buf, size_t n)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0)
		return -1;
	k = n > 1 ? read(fd, buf, n - 1) : -1;
	close(fd);
	while (k > 0 && (buf[k - 1] == '\n' || buf[k - 1] == ' '))
		k--;
	if (k <= 0)
		return -1;
	buf[k] = 0;
	return 0;
}

int64_t spool_default_max(const char *path)
{
	const int64_t most = (int64_t)8 << 30, least = (int64_t)1 << 20;
	struct statvfs fs;
	int64_t quarter;

	if (statvfs(path, &fs) < 0)
		return 0;
	quarter = (int64_t)((unsigned long long)fs.f_bavail * fs.f_frsize / 4);
	return quarter > most ? most : quarter < least ? least : quarter;
}

int spool_parse_size(const char *text, int64_t *bytes)
{
	char *end;
	double size;

	if (!text || !*text)
		return -1;
	size = strtod(text, &end);
	if (end == text)
		return -1;
	switch (*end) {
	case 'k': case 'K': size *= 1024; end++; break;
	case 'm': case 'M': size *= 1 << 20; end++; break;
	case 'g': case 'G': size *= 1 << 30; end++; break;
	case 't': case 'T': size *= 1099511627776.0; end++; break;
	}
	if (end[0] == 'i' && end[1] == 'B')
		end += 2;
	else if (end[0] == 'B')
		end++;
	if (*end || !(size >= 0) || size > 9e18)
		return -1;
	*bytes = (int64_t)size;
	return 0;
}

void spool_size_text(int64_t bytes, char *buf, size_t n)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (!u || v == (double)(int64_t)v)
		snprintf(buf, n, "%lld %s", (long long)v, units[u]);
	else
		snprintf(buf, n, "%.1f %s", v, units[u]);
}

void spool_stop_text(int stop, int err, int64_t max, uint64_t events, char *buf, size_t n)
{
	char size[32];

	switch (stop) {
	case RING_STOP_CAP:
		spool_size_text(max, size, sizeof(size));
		snprintf(buf, n, "the spool cap of %s was reached after %llu events: later events were not"
			 " recorded; raise it with 'mapprof record --max-spool SIZE' (or MAPPROF_SPOOL_MAX)",
			 size, (unsigned long long)events);
		break;
	case RING_STOP_WRITE:
		if (err == ENOSPC || err == EDQUOT)
			snprintf(buf, n, "the disk filled up after %llu events (cannot write the spool: %s):"
				 " later events were not recorded", (unsigned long long)events, strerror(err));
		else
			snprintf(buf, n, "the spool could not be written after %llu events (%s): later events"
				 " were not recorded", (unsigned long long)events, strerror(err));
		break;
	case RING_STOP_GONE:
		snprintf(buf, n, "the recorder ('mapprof record') was gone after %llu events: later events"
			 " were not recorded", (unsigned long long)events);
		break;
	case RING_STOP_LOST:
		snprintf(buf, n, "the program closed the spool's file descriptor after %llu events and the"
			 " spool could not be opened again (%s): later events were not recorded",
			 (unsigned long long)events, strerror(err ? err : EBADF));
		break;
	default:
		if (n)
			buf[0] = 0;
	}
}

int64_t spool_whole_end(int fd, int64_t size)
{
	int64_t off = sizeof(struct spool_header);
	struct spool_frame fr;

	if (size < off)
		return size;
	while (size - off >= (int64_t)sizeof(fr)) {
		if (pread(fd, &fr, sizeof(fr), (off_t)off) != (ssize_t)sizeof(fr) ||
		    size - off - (int64_t)sizeof(fr) < (int64_t)fr.len)
			break;
		off += (int64_t)sizeof(fr) + fr.len;
	}
	return off;
}
