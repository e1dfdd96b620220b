/*
 * loader.c - why a program could not start (loader.h).
 *
 * "error while loading shared libraries: libomptarget.so.19.1: cannot open
 * shared object file" is the loader's, printed by the program's process
 * before main; the collector never loads, and without this the record would
 * only say that the runtime never loaded it.  The loader's trace mode lists
 * every library and "not found" for the missing ones, without running the
 * program: asked only of dynamically linked ELF files (a static program
 * would ignore the variable and run).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/loader.h"

extern char **environ;

/* The file execvp() would run for 'program' (PATH searched when it has no '/'). */
static char *program_path(const char *program)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (strchr(program, '/'))
		return strdup(program);
	if (!path || !(copy = strdup(path)))
		return NULL;
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p;
		if (asprintf(&p, "%s/%s", *dir ? dir : ".", program) < 0)
			break;
		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

/* 1 when 'path' is a 64-bit ELF file with an interpreter (dynamically linked). */
static int dynamic_elf(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC), dyn = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 4096) {
		for (int i = 0; i < eh.e_phnum && !dyn; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph))
				break;
			dyn = ph.p_type == PT_INTERP;
		}
	}
	close(fd);
	return dyn;
}

/* The loader's trace of 'path' (malloc'ed), or NULL. */
static char *loader_trace(const char *path)
{
	int fds[2];
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)path, NULL };
	char **env, *out = NULL;
	size_t n = 0, cap = 0, envc = 0;
	pid_t pid;
	int st;

	while (environ[envc])
		envc++;
	if (!(env = calloc(envc + 2, sizeof(*env))))
		return NULL;
	env[0] = "LD_TRACE_LOADED_OBJECTS=1";
	for (size_t i = 0, j = 1; i < envc; i++)
		if (strncmp(environ[i], "LD_TRACE_LOADED_OBJECTS=", 24))
			env[j++] = environ[i];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(env);
		return NULL;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, path, &fa, NULL, argv, env)) {
		posix_spawn_file_actions_destroy(&fa);
		close(fds[0]);
		close(fds[1]);
		free(env);
		return NULL;
	}
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(fds[1]);
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *bigger = cap < (1u << 20) ? realloc(out, cap ? 2 * cap : 8192) : NULL;
			if (!bigger)
				break;
			out = bigger;
			cap = cap ? 2 * cap : 8192;
		}
		ssize_t r = read(fds[0], out + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (out)
		out[n] = '\0';
	return out;
}

/* A directory that holds 'name' among the usual places of runtimes that are off the loader's path. */
static char *where_is(const char *name)
{
	static const char *const patterns[] = {
		"/usr/lib/llvm-*/lib/", "/usr/local/lib/", "/usr/local/cuda/lib64/", "/opt/rocm/lib/",
	};
	char *dir = NULL;

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]) && !dir; i++) {
		char *pat;
		glob_t g;
		if (asprintf(&pat, "%s%s", patterns[i], name) < 0)
			return NULL;
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc) {
			/* The newest LLVM: glob sorts, the last is the highest version of one digit count. */
			const char *hit = g.gl_pathv[g.gl_pathc - 1];
			const char *slash = strrchr(hit, '/');
			dir = strndup(hit, (size_t)(slash - hit));
		}
		globfree(&g);
		free(pat);
	}
	return dir;
}

char *loader_diagnosis(const char *program)
{
	char *path = program_path(program), *trace, *missing = NULL, *fix = NULL, *msg = NULL;
	size_t nmissing = 0;

	if (path && access(path, F_OK) == 0 && !dynamic_elf(path)) {
		/*
		 * A script or a wrapper (mpirun, a job launcher): 127 is what a shell
		 * says for a command it did not find or a program the loader could
		 * not start, whose words went to the program's stderr.
		 */
		if (asprintf(&msg, "'%s' ended with status 127 before any OpenMP ran: for a script or a "
			     "wrapper that means a command not found or a program the loader could not start "
			     "(see its \"error while loading shared libraries\" above); for a missing library, "
			     "add its directory with -Wl,-rpath,DIR when linking, or LD_LIBRARY_PATH=DIR",
			     program) < 0)
			msg = NULL;
		free(path);
		return msg;
	}
	if (!path || !dynamic_elf(path) || !(trace = loader_trace(path))) {
		free(path);
		return NULL;
	}
	for (char *line = trace, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *arrow = strstr(line, " => not found");
		if (!arrow)
			continue;
		*arrow = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		char *joined;
		if (asprintf(&joined, "%s%s%s", missing ? missing : "", missing ? ", " : "", line) < 0)
			break;
		free(missing);
		missing = joined;
		nmissing++;
		if (!fix) {
			char *dir = where_is(line);
			if (dir && asprintf(&fix, "%s is in %s: build with -Wl,-rpath,%s or run with "
					    "LD_LIBRARY_PATH=%s", line, dir, dir, dir) < 0)
				fix = NULL;
			free(dir);
		}
	}
	if (missing &&
	    asprintf(&msg, "the program could not start: the loader cannot find %s %s "
		     "(\"error while loading shared libraries\"); %s", nmissing > 1 ? "the libraries" : "the library",
		     missing, fix ? fix : "add the directory that holds it with -Wl,-rpath,DIR when "
					  "linking, or LD_LIBRARY_PATH=DIR") < 0)
		msg = NULL;
	free(missing);
	free(fix);
	free(trace);
	free(path);
	return msg;
}
