/*
 * symbolize.c - the recorded module map, source records and ELF symbols.
 * Line tables are in report/attribute/dwarfline.c.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
/* XXH3-128 from libxxhash's header, compiled in (as report/attribute/snippet.c does). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "db/store/locations.h"
#include "lib/hmap.h"
#include "report/attribute/dwarfline.h"
#include "report/attribute/safefile.h"
#include "report/attribute/symbolize.h"
#include "lib/sort.h"
#include "lib/utf8.h"

enum mod_state { MOD_UNTRIED, MOD_OPEN, MOD_UNUSABLE };

struct sym_module {
	enum mod_state state;
	Dwfl_Module *mod;
	unsigned problem;     /* LOC_MODULE_UNREAD or LOC_BUILD_ID_DIFFER */
	char *why;            /* the sentence for location.note */
	unsigned indexed;     /* INDEXED_*: its DWARF file names are in these maps of symbolizer's */
};

#define INDEXED_NAMES 1u  /* symbolizer.source_names */
#define INDEXED_FILES 2u  /* symbolizer.source_files */

struct symbolizer {
	Dwfl *dwfl;
	char *debuginfo_path;           /* for dwfl_standard_find_debuginfo */
	Dwfl_Callbacks callbacks;
	struct module_row *rows;
	struct sym_module *mods;
	size_t n_mods;
	struct db *db;                  /* borrowed: the code pointers, on first need */
	struct codeptr_row *codeptrs;   /* of the run, sorted: construct kinds */
	size_t n_codeptrs;
	int have_codeptrs;
	struct source_row *sources;     /* sorted by codeptr */
	json_t **names;                 /* parsed map_names, lazily; parallel to sources */
	unsigned char *names_tried;
	size_t n_sources;
	struct hmap source_names;       /* XXH3-128 of each DWARF-named path (no stat) */
	struct hmap source_files;       /* {st_dev, st_ino} of DWARF-named files */
	struct dwarfline_cache *scopes; /* the units' scope trees (dwarfline.h) */
};

const char *sym_origin_name(enum sym_origin origin)
{
	switch (origin) {
	case ORIGIN_IDENT: return "ompt-ident";
	case ORIGIN_DWARF: return "dwarf";
	case ORIGIN_SYMBOL: return "symbol";
	case ORIGIN_NONE: break;
	}
	return "none";
}

void location_release(struct location *loc)
{
	if (!loc)
		return;
	free(loc->module);
	free(loc->function);
	free(loc->file);
	free(loc->comp_dir);
	for (size_t i = 0; i < loc->n_inlined; i++) {
		free(loc->inlined[i].function);
		free(loc->inlined[i].file);
	}
	free(loc->inlined);
	free(loc->note);
	memset(loc, 0, sizeof(*loc));
}

void variable_release(struct variable *var)
{
	if (!var)
		return;
	free(var->name);
	free(var->decl_file);
	memset(var, 0, sizeof(*var));
}

/* --- source record strings ------------------------------------------------ */

/*
 * Split ';a;b;c;d;;' into strings a, b and integers c, d.  Only a file name
 * can hold ';': 'b_may_hold' says which of a and b is the file (psource:
 * a, split at the last ';'; map name: b, split at the first).
 */
static int split4(const char *s, int b_may_hold, char **a, char **b, int *c, int *d)
{
	const char *start, *end, *p, *mid;
	char *endp;
	long c_val, d_val;

	*a = *b = NULL;
	if (!s)
		return -1;
	start = s;
	end = s + strlen(s);
	if (*start != ';' || end - start < 6 || strcmp(end - 2, ";;"))
		return -1;
	start++;
	end -= 2;
	/* d: after the last ';' before end; c: before it. */
	p = memrchr(start, ';', (size_t)(end - start));
	if (!p)
		return -1;
	d_val = strtol(p + 1, &endp, 10);
	if (endp != end || endp == p + 1)
		return -1;
	end = p;
	p = memrchr(start, ';', (size_t)(end - start));
	if (!p)
		return -1;
	c_val = strtol(p + 1, &endp, 10);
	if (endp != end || endp == p + 1)
		return -1;
	end = p;
	/* start..end holds "a;b" */
	if (b_may_hold)
		mid = memchr(start, ';', (size_t)(end - start));
	else
		mid = memrchr(start, ';', (size_t)(end - start));
	if (!mid || mid == start || mid + 1 == end)
		return -1;
	*a = strndup(start, (size_t)(mid - start));
	*b = strndup(mid + 1, (size_t)(end - mid - 1));
	if (!*a || !*b) {
		free(*a);
		free(*b);
		*a = *b = NULL;
		return -1;
	}
	*c = (int)c_val;
	*d = (int)d_val;
	return 0;
}

int ident_parse_psource(const char *s, char **file, char **function, int *line, int *column)
{
	if (split4(s, 0, file, function, line, column) < 0)
		return -1;
	if (*line <= 0 || !strcmp(*file, "unknown")) {
		free(*file);
		free(*function);
		*file = *function = NULL;
		return -1;
	}
	return 0;
}

int ident_parse_map_name(const char *s, char **name, char **file, int *line, int *column)
{
	if (split4(s, 1, name, file, line, column) < 0)
		return -1;
	if (!strcmp(*name, "unknown")) {
		free(*name);
		free(*file);
		*name = *file = NULL;
		return -1;
	}
	return 0;
}

/* --- the symbolizer --------------------------------------------------------- */

static int source_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct source_row *)a)->codeptr, y = ((const struct source_row *)b)->codeptr;
	return x < y ? -1 : x > y;
}

/* Set by lib/nodl.c, which only a statically linked mapprof has: libdw cannot load its debuginfod client. */
extern const int mapprof_no_dlopen __attribute__((weak));

/*
 * MAPPROF_DEBUGINFOD=1 in a static mapprof: the servers are asked through
 * the debuginfod client's own command, 'debuginfod-find debuginfo BUILD-ID'
 * (Debian: the debuginfod package), in a process of its own, which prints
 * the path of the file it fetched into its cache.  The descriptor of that
 * file, or -1 (not found, no build id, no command: said once).
 */
static int debuginfod_find(Dwfl_Module *mod, char **debuginfo_file_name)
{
	static int said;
	const unsigned char *bits;
	GElf_Addr vaddr;
	char hex[2 * 64 + 1], path[4096];
	int n = dwfl_module_build_id(mod, &bits, &vaddr), fds[2], st, fd = -1, rc;
	size_t have = 0;
	pid_t pid;
	posix_spawn_file_actions_t fa;

	if (n <= 0 || n > 64)
		return -1;
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	char *argv[] = { (char *)"debuginfod-find", (char *)"debuginfo", hex, NULL };
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		if (!said++)
			fprintf(stderr, "mapprof: warning: MAPPROF_DEBUGINFOD=1: cannot run debuginfod-find: %s "
				"(Debian: apt-get install debuginfod)\n", strerror(rc));
		return -1;
	}
	for (;;) {
		ssize_t r = read(fds[0], path + have, sizeof(path) - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		if (have == sizeof(path) - 1)
			break;
	}
	close(fds[0]);
	while ((rc = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (rc != pid)
		st = -1;   /* not its status: found nothing */
	path[have] = '\0';
	path[strcspn(path, "\n")] = '\0';
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && path[0] == '/' && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		*debuginfo_file_name = strdup(path);
		if (!*debuginfo_file_name) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

/*
 * Where a module's separate debug information is looked for: a build-id
 * file under the debuginfo path (/usr/lib/debug/.build-id/), or the file a
 * .gnu_debuglink section names, on this machine only.  libdw's standard
 * search ends by asking debuginfod servers, which loads libdebuginfod and
 * libcurl with some 30 libraries (15 ms and more at the end of every
 * 'mapprof record' of a program built without -g) and, where
 * DEBUGINFOD_URLS is set, waits on the network (DEBUGINFOD_TIMEOUT, 90 s by
 * default, on a compute node that cannot reach the server): that search is
 * only made with MAPPROF_DEBUGINFOD=1.  A module without a debuglink gets
 * the build-id lookup alone; one with a debuglink gets libdw's whole local
 * search, which reaches debuginfod only when the named file is missing.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	static int remote = -1;
	int fd;

	if (remote < 0) {
		const char *e = getenv("MAPPROF_DEBUGINFOD");
		remote = e && !strcmp(e, "1");
	}
	if (remote || debuglink_file) {
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
						  debuglink_crc, debuginfo_file_name);
		if (fd < 0 && remote && &mapprof_no_dlopen)
			fd = debuginfod_find(mod, debuginfo_file_name);
		return fd;
	}
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	return fd;
}

struct symbolizer *symbolizer_new(struct db *db, char **err)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	if (!s) {
		if (err)
			*err = strdup("out of memory");
		return NULL;
	}
	s->db = db;
	hmap_init(&s->source_names, 2, 0);
	hmap_init(&s->source_files, 2, 0);
	if (locations_read_modules(db, &s->rows, &s->n_mods, err) < 0 ||
	    locations_read_sources(db, &s->sources, &s->n_sources, err) < 0)
		goto fail;
	sort_array(s->sources, s->n_sources, sizeof(*s->sources), source_cmp);
	s->mods = calloc(s->n_mods ? s->n_mods : 1, sizeof(*s->mods));
	s->names = calloc(s->n_sources ? s->n_sources : 1, sizeof(*s->names));
	s->names_tried = calloc(s->n_sources ? s->n_sources : 1, 1);
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->scopes = dwarfline_cache_new();
	if (s->mods && s->names && s->names_tried && s->scopes)
		s->dwfl = dwfl_begin(&s->callbacks);
	if (!s->dwfl) {
		if (err)
			*err = strdup("cannot start libdw: out of memory");
		goto fail;
	}
	return s;
fail:
	symbolizer_free(s);
	return NULL;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	dwarfline_cache_free(s->scopes);   /* its DIEs point into the Dwfl's */
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; s->mods && i < s->n_mods; i++)
		free(s->mods[i].why);
	free(s->mods);
	module_rows_free(s->rows, s->n_mods);
	for (size_t i = 0; s->names && i < s->n_sources; i++)
		json_decref(s->names[i]);
	free(s->names);
	free(s->names_tried);
	source_rows_free(s->sources, s->n_sources);
	free(s->codeptrs);
	hmap_release(&s->source_names);
	hmap_release(&s->source_files);
	free(s);
}

static int build_id_matches(Dwfl_Module *mod, const char *recorded)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	char hex[3];
	size_t len;

	if (!recorded || !*recorded)
		return 1;       /* nothing to compare against */
	len = strlen(recorded);
	if (n <= 0 || len != 2 * (size_t)n)
		return 0;
	for (int i = 0; i < n; i++) {
		snprintf(hex, sizeof(hex), "%02x", bits[i]);
		if (strncasecmp(hex, recorded + 2 * i, 2))
			return 0;
	}
	return 1;
}

/* The module row i opened in the Dwfl, or NULL when unusable (why says so). */
static Dwfl_Module *module_open(struct symbolizer *s, size_t i)
{
	struct sym_module *m = &s->mods[i];
	const struct module_row *row = &s->rows[i];
	Dwfl_Module *mod;
	const char *bad;
	int fd;

	if (m->state == MOD_OPEN)
		return m->mod;
	if (m->state == MOD_UNUSABLE)
		return NULL;
	m->state = MOD_UNUSABLE;
	if (!row->path || !*row->path) {
		m->problem = LOC_MODULE_UNREAD;
		m->why = strdup("the module has no recorded path");
		return NULL;
	}
	/* The path is the database's: a FIFO there would hang libdw's open. */
	fd = safefile_open(row->path, SAFEFILE_MAX_MODULE_BYTES, &bad);
	if (fd < 0) {
		m->problem = LOC_MODULE_UNREAD;
		if (asprintf(&m->why, "cannot open '%s': %s", row->path, bad) < 0)
			m->why = NULL;
		return NULL;
	}
	/* On success the Dwfl owns fd (dwfl_end closes it); on failure we do. */
	dwfl_report_begin_add(s->dwfl);
	mod = dwfl_report_elf(s->dwfl, row->path, row->path, fd, row->base, false);
	if (!mod)
		close(fd);
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0)
		mod = NULL;
	if (!mod) {
		m->problem = LOC_MODULE_UNREAD;
		if (asprintf(&m->why, "cannot open '%s': %s", row->path, dwfl_errmsg(-1)) < 0)
			m->why = NULL;
		return NULL;
	}
	if (!build_id_matches(mod, row->build_id)) {
		m->problem = LOC_BUILD_ID_DIFFER;
		if (asprintf(&m->why, "'%s' changed since the recording (its build-id differs); "
			     "symbols and lines from it would be wrong", row->path) < 0)
			m->why = NULL;
		return NULL;
	}
	m->state = MOD_OPEN;
	m->mod = mod;
	return mod;
}

/* Index of the recorded module whose mapped range holds addr, or -1. */
static long module_find(const struct symbolizer *s, uint64_t addr)
{
	for (size_t i = 0; i < s->n_mods; i++)
		if (s->rows[i].low <= addr && addr < s->rows[i].high)
			return (long)i;
	return -1;
}

static const struct source_row *source_find(const struct symbolizer *s, uint64_t codeptr, size_t *idx)
{
	struct source_row key = { .codeptr = codeptr };
	const struct source_row *r;
	if (!s->n_sources)
		return NULL;
	r = bsearch(&key, s->sources, s->n_sources, sizeof(key), source_cmp);
	if (r && idx)
		*idx = (size_t)(r - s->sources);
	return r;
}

int symbolizer_set_codeptrs(struct symbolizer *s, const struct codeptr_row *rows, size_t n)
{
	struct codeptr_row *copy = malloc((n ? n : 1) * sizeof(*copy));

	if (!copy)
		return -1;
	memcpy(copy, rows, n * sizeof(*copy));
	free(s->codeptrs);
	s->codeptrs = copy;
	s->n_codeptrs = n;
	s->have_codeptrs = 1;
	return 0;
}

/* The run's code pointers, read when nobody gave them.  -1 when they cannot be. */
static int need_codeptrs(struct symbolizer *s)
{
	char *err = NULL;

	if (s->have_codeptrs)
		return 0;
	if (locations_read_codeptrs(s->db, &s->codeptrs, &s->n_codeptrs, &err) < 0) {
		free(err);
		return -1;
	}
	s->have_codeptrs = 1;
	return 0;
}

/* What construct the recording saw at codeptr, and the next code pointer after it. */
static enum construct_hint construct_at(const struct symbolizer *s, uint64_t codeptr, uint64_t *next)
{
	size_t lo = 0, hi = s->n_codeptrs;
	while (lo < hi) {   /* first row with codeptr >= the one asked */
		size_t mid = lo + (hi - lo) / 2;
		if (s->codeptrs[mid].codeptr < codeptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next = UINT64_MAX;
	if (lo == s->n_codeptrs || s->codeptrs[lo].codeptr != codeptr) {
		if (lo < s->n_codeptrs)
			*next = s->codeptrs[lo].codeptr;
		return CONSTRUCT_UNKNOWN;
	}
	if (lo + 1 < s->n_codeptrs)
		*next = s->codeptrs[lo + 1].codeptr;
	switch (s->codeptrs[lo].target_kind) {
	case 1:     /* ompt_target */
	case 9:     /* ompt_target_nowait */
	case 33:    /* an OpenACC compute construct (collector/openacc.c) */
		return CONSTRUCT_KERNEL;
	case 0:
		return CONSTRUCT_UNKNOWN;
	default:
		return CONSTRUCT_DATA;
	}
}

static int set_note(struct location *out, const char *why)
{
	const char *what = NULL;
	if (out->note && !why)
		return 0;   /* dwarfline's, about the line */
	free(out->note);
	out->note = NULL;
	if (why)
		what = why;
	else if (out->flags & LOC_NO_MODULE)
		what = out->codeptr ? "the address is in no recorded module"
			: "the runtime gave no code address for this event";
	else if (out->flags & LOC_NEED_DEBUG)
		what = "no line information: rebuild with -g for source lines";
	if (!what)
		return 0;
	if (out->flags & LOC_NEED_DEBUG && out->module && !why) {
		const char *base = strrchr(out->module, '/');
		return asprintf(&out->note, "no line information in '%s': rebuild it with -g for "
				"source lines", base ? base + 1 : out->module) < 0 ? -1 : 0;
	}
	out->note = strdup(what);
	return out->note ? 0 : -1;
}

int symbolize_code(struct symbolizer *s, uint64_t codeptr, struct location *out)
{
	const struct source_row *src;
	Dwfl_Module *mod = NULL;
	const char *why = NULL;
	long mi;

	memset(out, 0, sizeof(*out));
	out->codeptr = codeptr;
	mi = codeptr ? module_find(s, codeptr) : -1;
	if (mi >= 0) {
		out->module = strdup(s->rows[mi].path ? s->rows[mi].path : "");
		if (!out->module)
			return -1;
		out->offset = codeptr - s->rows[mi].base;
		mod = module_open(s, (size_t)mi);
		if (!mod) {
			out->flags |= s->mods[mi].problem;
			why = s->mods[mi].why;
		}
	} else {
		out->flags |= LOC_NO_MODULE;
	}
	src = codeptr ? source_find(s, codeptr, NULL) : NULL;
	if (src && src->psource &&
	    ident_parse_psource(src->psource, &out->file, &out->function, &out->line, &out->column) == 0)
		out->origin = ORIGIN_IDENT;
	if (mod) {
		uint64_t next;
		enum construct_hint hint;
		if (need_codeptrs(s) < 0) {
			location_release(out);
			return -1;
		}
		hint = construct_at(s, codeptr, &next);
		if (dwarfline_locate(s->scopes, mod, (Dwarf_Addr)codeptr - 1, hint, next, out) < 0) {
			location_release(out);
			return -1;
		}
	}
	/* A source record makes any problem with the module file harmless. */
	if (out->origin == ORIGIN_IDENT)
		out->flags &= ~(unsigned)(LOC_NEED_DEBUG | LOC_LINE_NEARBY | LOC_LINE_REGION);
	if (out->origin == ORIGIN_IDENT && why && (out->flags & LOC_MODULE_UNREAD))
		why = NULL;
	if (set_note(out, why) < 0) {
		location_release(out);
		return -1;
	}
	return 0;
}

static void name_key(const char *path, uint64_t key[2])
{
	XXH128_hash_t h = XXH3_128bits(path, strlen(path));

	key[0] = h.low64;
	key[1] = h.high64;
}

/*
 * Each path one opened module's DWARF names (relative ones under their
 * unit's compilation directory), to fn(s, path): 0, or fn's -1.
 */
static int module_source_paths(struct symbolizer *s, Dwfl_Module *mod,
			       int (*fn)(struct symbolizer *s, const char *path))
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		Dwarf_Attribute attr;
		const char *dir = dwarf_attr(cu, DW_AT_comp_dir, &attr) ? dwarf_formstring(&attr) : NULL;
		Dwarf_Files *files;
		size_t n;

		if (dwarf_getsrcfiles(cu, &files, &n) != 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			const char *name = dwarf_filesrc(files, i, NULL, NULL);
			char *joined = NULL;
			int rc;

			if (!name || !*name)
				continue;
			if (name[0] != '/' && dir && *dir) {
				if (asprintf(&joined, "%s/%s", dir, name) < 0)
					return -1;
				name = joined;
			}
			rc = fn(s, name);
			free(joined);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

static int add_source_name(struct symbolizer *s, const char *path)
{
	uint64_t key[2];

	name_key(path, key);
	return hmap_put(&s->source_names, key, NULL) ? 0 : -1;
}

static int add_source_file(struct symbolizer *s, const char *path)
{
	struct stat st;
	uint64_t key[2];

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	key[0] = (uint64_t)st.st_dev;
	key[1] = (uint64_t)st.st_ino;
	return hmap_put(&s->source_files, key, NULL) ? 0 : -1;
}

/* Each opened module not yet in the map 'which' (INDEXED_*) put in it by fn.  0, or -1. */
static int index_modules(struct symbolizer *s, unsigned which, int (*fn)(struct symbolizer *s, const char *path))
{
	for (size_t i = 0; i < s->n_mods; i++) {
		if (s->mods[i].state != MOD_OPEN || (s->mods[i].indexed & which))
			continue;
		if (module_source_paths(s, s->mods[i].mod, fn) < 0)
			return -1;
		s->mods[i].indexed |= which;
	}
	return 0;
}

/*
 * Whether path is a file the opened modules' DWARF names: first by its
 * spelling (a path the line tables gave, as a location's file is: no
 * system call), then, for another spelling of such a file (a symlink, a
 * '..'), by device and inode, which stats every file they name (a C++
 * program's headers: hundreds; 1.4 ms of a TeaLeaf recording).
 */
int symbolizer_is_source(struct symbolizer *s, const char *path)
{
	struct stat st;
	uint64_t key[2];

	if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (index_modules(s, INDEXED_NAMES, add_source_name) < 0)
		return -1;
	name_key(path, key);
	if (hmap_get(&s->source_names, key))
		return 1;
	if (index_modules(s, INDEXED_FILES, add_source_file) < 0)
		return -1;
	key[0] = (uint64_t)st.st_dev;
	key[1] = (uint64_t)st.st_ino;
	return hmap_get(&s->source_files, key) != NULL;
}

/* The parsed map_names array of source row idx (borrowed), or NULL. */
static json_t *map_names(struct symbolizer *s, size_t idx)
{
	if (!s->names_tried[idx]) {
		s->names_tried[idx] = 1;
		const char *text = s->sources[idx].map_names;
		if (text)
			s->names[idx] = json_loads(text, 0, NULL);
		if (text && !s->names[idx] && !utf8_valid(text, strlen(text))) {
			/*
			 * Bytes that are not UTF-8 (a Latin-1 file name: the collector
			 * copies clang's strings as they are): Jansson refuses the
			 * whole array, and every variable of the construct became its
			 * address.  Each such byte is read as its character (lib/utf8.h).
			 */
			char *fixed = utf8_latin1(text, strlen(text), NULL);
			if (fixed)
				s->names[idx] = json_loads(fixed, 0, NULL);
			free(fixed);
		}
		if (s->names[idx] && !json_is_array(s->names[idx])) {
			json_decref(s->names[idx]);
			s->names[idx] = NULL;
		}
	}
	return s->names[idx];
}

/* The ELF object symbol covering addr: "name" or "name+0xOFF" (malloc'ed), or NULL. */
static char *object_symbol(struct symbolizer *s, uint64_t addr)
{
	long mi = module_find(s, addr);
	Dwfl_Module *mod = mi >= 0 ? module_open(s, (size_t)mi) : NULL;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name;
	char *out = NULL;

	if (!mod)
		return NULL;
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
		return NULL;
	if (off >= sym.st_size && !(sym.st_size == 0 && off == 0))
		return NULL;
	if (off == 0)
		return strdup(name);
	if (asprintf(&out, "%s+0x%" PRIx64, name, (uint64_t)off) < 0)
		return NULL;
	return out;
}

int symbolize_variable(struct symbolizer *s, uint64_t codeptr, int map_index,
		       uint64_t host_addr, struct variable *out)
{
	size_t idx;
	int col = 0;

	memset(out, 0, sizeof(*out));
	if (map_index >= 0 && codeptr && source_find(s, codeptr, &idx)) {
		json_t *names = map_names(s, idx);
		const char *str = json_string_value(json_array_get(names, (size_t)map_index));
		if (str && ident_parse_map_name(str, &out->name, &out->decl_file, &out->decl_line, &col) == 0) {
			out->decl_column = col;
			out->origin = ORIGIN_IDENT;
			return 0;
		}
	}
	if (!host_addr)
		return 0;
	out->name = object_symbol(s, host_addr);
	if (out->name) {
		out->origin = ORIGIN_SYMBOL;
		return 0;
	}
	if (asprintf(&out->name, "0x%" PRIx64, host_addr) < 0) {
		out->name = NULL;
		return -1;
	}
	return 0;
}
