/*
 * test_termesc.c - lib/termesc (text made safe for a terminal), lib/shquote.h
 * (paths quoted for a shell) and lib/outfile's OUTFILE_TEXT stream, which
 * escapes what it is given in pieces: a UTF-8 sequence cut between two of
 * its writes must come out whole, a cut that never ends as \xNN.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/shquote.h"
#include "lib/termesc.h"
#include "check.h"

static void esc_is(const char *in, unsigned flags, const char *want)
{
	char *got = termesc_dup(in, flags);
	CHECK_STR(got, want);
	free(got);
}

static void test_escape(void)
{
	esc_is("plain a[0:N] é ü 漢", 0, "plain a[0:N] é ü 漢");
	/* Retitle, bell, clear screen. */
	esc_is("a\x1b]0;PWNED\x07\x1b[2Jb", 0, "a\\x1b]0;PWNED\\x07\\x1b[2Jb");
	esc_is("l1\nl2\tx\ry\x7f", 0, "l1\\nl2\\tx\\ry\\x7f");
	esc_is("l1\nl2\tx\ry", TERMESC_LINES, "l1\nl2\tx\\ry");
	/* C1 as UTF-8 (U+009B CSI), right-to-left override, line separator. */
	esc_is("\xc2\x9b" "2J \xe2\x80\xae" "x \xe2\x80\xa8", 0, "\\u009b2J \\u202ex \\u2028");
	/* Not UTF-8: a lone C1 byte, a cut sequence, an overlong '/', a surrogate. */
	esc_is("\x9b" "a \xe2\x80" "b \xc0\xaf \xed\xa0\x80", 0,
	       "\\x9ba \\xe2\\x80b \\xc0\\xaf \\xed\\xa0\\x80");
	esc_is("end \xe2\x80", 0, "end \\xe2\\x80");
	esc_is(NULL, 0, "(null)");
}

static void test_escape_pieces(void)
{
	/* Not final: a sound but cut sequence waits for the next piece. */
	char out[TERMESC_MAX(16)];
	size_t used, n = termesc(out, "ab\xe2\x80", 4, 0, 0, &used);
	CHECK_INT(n, 2);
	CHECK_INT(used, 2);
	/* A cut that cannot become sound does not wait. */
	n = termesc(out, "ab\xe2\x41", 4, 0, 0, &used);
	CHECK_INT(used, 4);
	CHECK_INT(n, 7);
}

static void quote_is(const char *in, const char *want)
{
	char buf[256];
	size_t n = shquote(buf, sizeof(buf), in);
	CHECK_STR(buf, want);
	CHECK_INT(n, strlen(want));
}

static void test_shquote(void)
{
	quote_is("/tmp/run.db-spool", "/tmp/run.db-spool");
	quote_is("a b;$(id>PWNED).db", "'a b;$(id>PWNED).db'");
	quote_is("it's", "'it'\\''s'");
	quote_is("", "''");
	quote_is("-x.db", "./-x.db");
	quote_is("-a b", "./'-a b'");
	quote_is("~/x", "'~/x'");
	/* Too small a buffer: cut, terminated, the whole length returned. */
	char small[4];
	CHECK_INT(shquote(small, sizeof(small), "a b"), 5);
	CHECK_STR(small, "'a ");
}

/* What an OUTFILE_TEXT stream makes of 'in', written in pieces of 'step'. */
static char *through_stream(const char *in, size_t len, size_t step)
{
	char path[] = "/tmp/mapprof-test-termesc.XXXXXX", *text = NULL;
	struct outfile o;
	size_t size = 0;
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	CHECK_INT(outfile_fd(&o, fd, OUTFILE_TEXT), 0);
	/* Unbuffered: each fwrite reaches the escaping as its own piece. */
	setvbuf(o.f, NULL, _IONBF, 0);
	for (size_t i = 0; i < len; i += step)
		fwrite(in + i, 1, len - i < step ? len - i : step, o.f);
	CHECK_INT(outfile_commit(&o), 0);
	f = fdopen(fd, "r");
	if (f) {
		rewind(f);
		if (getdelim(&text, &size, 0, f) < 0) {
			free(text);
			text = strdup("");
		}
		fclose(f);
	}
	unlink(path);
	return text;
}

static void test_stream(void)
{
	static const char in[] = "é\x1b[2J漢\n\t\xe2\x80\xae!\xe2\x80";
	static const char want[] = "é\\x1b[2J漢\n\t\\u202e!\\xe2\\x80";

	for (size_t step = 1; step <= sizeof(in); step++) {
		char *got = through_stream(in, sizeof(in) - 1, step);
		CHECK_STR(got, want);
		free(got);
	}
	/* Bigger than one piece of the escaping (1024 bytes). */
	{
		size_t n = 5000;
		char *big = malloc(n * 2), *got;
		for (size_t i = 0; i < n; i++)
			memcpy(big + 2 * i, "é", 2);
		got = through_stream(big, n * 2, 333);
		CHECK(got && strlen(got) == n * 2 && !memcmp(got, big, n * 2));
		free(got);
		free(big);
	}
}

static void test_write_error(void)
{
	/* The first failed write's errno, not a later one's. */
	struct outfile o;
	if (access("/dev/full", W_OK) != 0)
		return;
	CHECK_INT(outfile_open(&o, "/dev/full", 0), 0);
	fputs("x", o.f);
	fflush(o.f);
	errno = ENOENT;
	CHECK_INT(outfile_commit(&o), -1);
	CHECK_INT(errno, ENOSPC);
}

int main(void)
{
	RUN(test_escape);
	RUN(test_escape_pieces);
	RUN(test_shquote);
	RUN(test_stream);
	RUN(test_write_error);
	return check_done();
}
