/*
 * symbolize.h - code and data addresses of a recorded run to source terms.
 *
 * The collector records raw addresses (OMPT codeptr_ra, host addresses of
 * mapped data), the module map of the process, and, for programs built with
 * -g, the source records clang passes to the offload entry points
 * (source_raw: the construct's ident ';file;function;line;column;;' and one
 * ';name;file;line;column;;' per map entry).  A symbolizer turns those into
 * locations and variable names, in this order of preference:
 *
 *   ompt-ident  the source record of the call site: the directive's exact line
 *   dwarf       the line table of the module (libdw), with clang-19's line-0
 *               kernel-launch sequences resolved to the offload region's line
 *   symbol      no line information: the ELF symbol (function) only
 *   none        nothing but module + offset (or not even a module)
 *
 * Code pointers are return addresses: lines are looked up at codeptr - 1.
 * Modules are opened from their recorded paths, lazily, at their recorded
 * load bias; a module whose build-id differs from the recorded one is not
 * trusted for DWARF or symbols (the note says so).  docs/attribution.md has
 * the details.  One Dwfl per symbolizer; not thread-safe.
 */
#ifndef MAPPROF_REPORT_SYMBOLIZE_H
#define MAPPROF_REPORT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct codeptr_row;
struct db;
struct symbolizer;

enum sym_origin {
	ORIGIN_NONE,    /* "none" */
	ORIGIN_SYMBOL,  /* "symbol" */
	ORIGIN_DWARF,   /* "dwarf" */
	ORIGIN_IDENT,   /* "ompt-ident" */
};

/* "none", "symbol", "dwarf", "ompt-ident" (static strings). */
const char *sym_origin_name(enum sym_origin origin);

/* Why a location is less than exact; several may be set. */
enum {
	LOC_NO_MODULE       = 1 << 0,  /* the address is in no recorded module */
	LOC_MODULE_UNREAD   = 1 << 1,  /* the module file cannot be opened */
	LOC_BUILD_ID_DIFFER = 1 << 2,  /* the module file changed since the recording */
	LOC_NEED_DEBUG      = 1 << 3,  /* no line information: rebuild with -g */
	LOC_LINE_NEARBY     = 1 << 4,  /* DWARF said line 0; the line is a statement
					  next to the directive (docs/attribution.md) */
	LOC_LINE_REGION     = 1 << 5,  /* DWARF's line for a kernel launch was wrong or
					  0; the line is its offload region's (exact) */
};

/* One caller in an inline chain: 'function' was inlined at file:line. */
struct inline_frame {
	char *function;
	char *file;
	int line;
	int column;
};

/* Every string is malloc'ed and owned by the struct; NULL when unknown. */
struct location {
	uint64_t codeptr;
	char *module;          /* recorded path of the module holding codeptr */
	uint64_t offset;       /* codeptr - load bias: the address inside the ELF
				  file (addr2line -e module offset-1) */
	char *function;
	char *file;            /* as the compiler recorded it: may be relative */
	int line;              /* 0 when unknown */
	int column;            /* 0 when unknown */
	char *comp_dir;        /* DWARF compilation directory, to resolve 'file' */
	struct inline_frame *inlined;  /* callers, innermost first: inlined[0] is
					  where 'function' was inlined */
	size_t n_inlined;
	enum sym_origin origin;
	unsigned flags;        /* LOC_* */
	char *note;            /* one human-readable sentence on flags, or NULL */
};

/* Free what a location holds (not the struct); accepts NULL; zeroes it. */
void location_release(struct location *loc);

struct variable {
	char *name;            /* "a[0:N]", "table", "table+0x40" or "0x7ffd1234" */
	char *decl_file;       /* declaration, when known */
	int decl_line;
	int decl_column;
	enum sym_origin origin;  /* IDENT (map name), SYMBOL (ELF object), NONE */
};

void variable_release(struct variable *var);

/*
 * Read the module map and source records of the run in 'db'.  Opens no
 * module file yet.  'db' must stay open while the symbolizer is used: the
 * run's code pointers (which construct each belongs to, for line hints) are
 * read from it on the first symbolize_code() unless symbolizer_set_codeptrs()
 * gave them.  Returns NULL with *err set on a database error.
 */
struct symbolizer *symbolizer_new(struct db *db, char **err);

/*
 * Give the run's code pointers, as locations_read_codeptrs() would read them
 * (every distinct one, sorted): a caller that has them from its own pass over
 * the events saves the symbolizer another.  'rows' is copied.  0, or -1 when
 * out of memory.
 */
int symbolizer_set_codeptrs(struct symbolizer *s, const struct codeptr_row *rows, size_t n);

/* Accepts NULL. */
void symbolizer_free(struct symbolizer *s);

/*
 * Symbolize one code pointer (a return address; 0 allowed).  Always fills
 * *out (origin NONE at worst) and returns 0; -1 only when out of memory (or
 * when the run's code pointers, read on first need, cannot be read).
 * The caller releases *out with location_release().
 */
int symbolize_code(struct symbolizer *s, uint64_t codeptr, struct location *out);

/*
 * Whether the file at 'path' (on this machine) is a source file of the
 * recorded program: one that the DWARF line tables of a module the
 * symbolizer opened name (each compilation unit's file table, relative names
 * joined to its DW_AT_comp_dir), compared as spelled, else by device and
 * inode (which stats every file the modules name).  Modules are
 * opened only from regular files whose build-id matches the recorded one,
 * by the symbolize_* calls before this one.  1 yes, 0 no, -1 when out of
 * memory.
 */
int symbolizer_is_source(struct symbolizer *s, const char *path);

/*
 * Name the data a data operation moved: the map entry 'map_index' (< 0 when
 * unknown) of the call at 'codeptr', else the global or static object
 * (STT_OBJECT) whose extent covers 'host_addr' (0 when unknown), else the
 * address in hex (or NULL name when there is no address either).  Returns 0,
 * or -1 when out of memory; release *out with variable_release().
 */
int symbolize_variable(struct symbolizer *s, uint64_t codeptr, int map_index,
		       uint64_t host_addr, struct variable *out);

/*
 * The source-record string formats (exposed for tests).  Each returns 0 and
 * malloc'ed strings, or -1 when 's' is malformed or says nothing (clang's
 * ';unknown;unknown;0;0;;' for code built without -g).
 *   psource:  ';file;function;line;column;;'
 *   map name: ';name;file;line;column;;'
 */
int ident_parse_psource(const char *s, char **file, char **function, int *line, int *column);
int ident_parse_map_name(const char *s, char **name, char **file, int *line, int *column);

#endif
