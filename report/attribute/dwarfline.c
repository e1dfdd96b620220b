/*
 * dwarfline.c - function, file, line and inline chain of an address (libdw).
 *
 * The trap this file exists for: clang 19 gives the kernel-launch sequence of
 * a 'target' construct line 0 in the line table, and that is exactly where
 * the OMPT codeptr_ra of the construct points.  The line before the sequence
 * belongs to whatever statement preceded the directive, so walking back (what
 * a plain symbolizer would do, or print "<optimized out>") names the wrong
 * line.  What follows the launch is the host fallback of the same region:
 * with optimization an inline instance of '__omp_offloading_..._l<LINE>'
 * whose call site is the directive, without it a call attributed to the
 * directive's line.  clang 19 also gives line 0 to some data-construct calls
 * (the begin and end of 'target data'), and now and then gives a launch the
 * line of the statement before it.  So:
 *  - a kernel launch (a 'target' construct: hint from target_raw.kind) takes
 *    the line of the first offload region (inline instance or call site of
 *    an '__omp_offloading_..._l<LINE>' function) that starts after it and
 *    before the next recorded code pointer, in the enclosing function: that
 *    region's call line is the directive's (LOC_LINE_REGION when it differs
 *    from the row);
 *  - other addresses keep a non-zero row; at line 0 they take an offload
 *    region before the next row (unknown construct only), else the next row
 *    with a line in the same sequence and function, else the previous one,
 *    else the function's declaration line (LOC_LINE_NEARBY).
 * Nearby lines are near, not exact: the end of a 'target data' region gets
 * the statement after the region.  Programs with source records never need
 * any of this (their line comes from the ident); it is the fallback.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "report/attribute/dwarfline.h"
#include "report/attribute/flang_name.h"

#define OFFLOAD_PREFIX "__omp_offloading_"

/* *dst = strdup(s) (NULL stays NULL); -1 when out of memory. */
static int set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? strdup(s) : NULL;
	return s && !*dst ? -1 : 0;
}

/* A function's name as a person reads it: flang's internal names made readable (flang_name.h). */
static int set_function(char **dst, const char *s)
{
	char *readable = flang_name_demangle(s);

	if (!readable)
		return set_str(dst, s);
	free(*dst);
	*dst = readable;
	return 0;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr_integrate(die, DW_AT_name, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

static int die_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *v)
{
	Dwarf_Attribute attr;
	return dwarf_attr(die, name, &attr) && dwarf_formudata(&attr, v) == 0 ? 0 : -1;
}

static int is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* Name of file 'idx' of the CU's file table (borrowed from libdw). */
static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t n;
	if (dwarf_getsrcfiles(cu, &files, &n) != 0 || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The address range of 'die' that holds pc. */
static int die_range_at(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (pc >= start && pc < end) {
			*lo = start;
			*hi = end;
			return 0;
		}
	}
	return -1;
}

/* A candidate line for a line-0 address (strings borrowed from libdw). */
struct pick {
	int found;
	Dwarf_Addr addr;
	const char *file;
	int line;
	int column;
};

/* The directive line clang puts in an offload function's name: '..._l<N>'. */
static int offload_name_line(const char *name)
{
	const char *p = name + strlen(name), *digits;
	size_t debug_len = strlen("_debug__");
	if ((size_t)(p - name) > debug_len && !strcmp(p - debug_len, "_debug__"))
		p -= debug_len;
	digits = p;
	while (digits > name && digits[-1] >= '0' && digits[-1] <= '9')
		digits--;
	if (digits == p || digits - name < 2 || digits[-1] != 'l' || digits[-2] != '_')
		return 0;
	return atoi(digits);
}

/* Consider an inline instance or call site: is it an offload region entered after 'after'? */
static void consider_offload(Dwarf_Die *cu, Dwarf_Die *die, Dwarf_Addr after, Dwarf_Addr before,
			     struct pick *best)
{
	int tag = dwarf_tag(die);
	unsigned origin_at = tag == DW_TAG_call_site ? DW_AT_call_origin : DW_AT_abstract_origin;
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	Dwarf_Addr entry;
	Dwarf_Word w;
	const char *name;

	if (!dwarf_attr(die, origin_at, &attr) || !dwarf_formref_die(&attr, &origin))
		return;
	name = die_name(&origin);
	if (!name || strncmp(name, OFFLOAD_PREFIX, strlen(OFFLOAD_PREFIX)) != 0)
		return;
	if (tag == DW_TAG_inlined_subroutine) {
		if (dwarf_entrypc(die, &entry) != 0)
			return;
	} else if (!(dwarf_attr(die, DW_AT_call_return_pc, &attr) || dwarf_attr(die, DW_AT_low_pc, &attr)) ||
		   dwarf_formaddr(&attr, &entry) != 0) {
		return;
	}
	if (entry <= after || entry > before || (best->found && entry >= best->addr))
		return;
	if (tag == DW_TAG_inlined_subroutine && die_udata(die, DW_AT_call_line, &w) == 0 && w > 0) {
		best->line = (int)w;
		best->file = die_udata(die, DW_AT_call_file, &w) == 0 ? cu_file(cu, w) : NULL;
		best->column = die_udata(die, DW_AT_call_column, &w) == 0 ? (int)w : 0;
	} else {
		best->line = offload_name_line(name);
		best->file = dwarf_decl_file(&origin);
		best->column = 0;
	}
	if (best->line > 0) {
		best->found = 1;
		best->addr = entry;
	}
}

static void find_offload(Dwarf_Die *cu, Dwarf_Die *parent, Dwarf_Addr after, Dwarf_Addr before,
			 struct pick *best)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_call_site ||
		    tag == DW_TAG_GNU_call_site)
			consider_offload(cu, &child, after, before, best);
		if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine)
			find_offload(cu, &child, after, before, best);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void pick_row(Dwarf_Line *l, Dwarf_Addr a, struct pick *p)
{
	p->found = 1;
	p->addr = a;
	p->file = dwarf_linesrc(l, NULL, NULL);
	dwarf_lineno(l, &p->line);
	dwarf_linecol(l, &p->column);
}

/*
 * The rows with a line nearest 'pc' (which has line 0) within [lo, hi) and
 * its sequence.  libdw keeps rows sorted by address, an end_sequence row
 * before the first row of the next sequence at the same address.
 */
static void nearest_rows(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Addr lo, Dwarf_Addr hi,
			 struct pick *fwd, struct pick *back)
{
	Dwarf_Lines *lines;
	size_t n, i = 0, k;
	int have = 0;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return;
	for (k = 0; k < n; k++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, k);
		Dwarf_Addr a;
		bool end;
		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineendsequence(l, &end) != 0)
			return;
		if (a > pc)
			break;
		have = !end;
		i = k;
	}
	if (!have)
		return;
	for (k = i + 1; k < n; k++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, k);
		Dwarf_Addr a;
		bool end;
		int line;
		dwarf_lineaddr(l, &a);
		dwarf_lineendsequence(l, &end);
		if (end || a >= hi)
			break;
		if (dwarf_lineno(l, &line) == 0 && line > 0) {
			pick_row(l, a, fwd);
			break;
		}
	}
	for (k = i; k-- > 0;) {
		Dwarf_Line *l = dwarf_onesrcline(lines, k);
		Dwarf_Addr a;
		bool end;
		int line;
		dwarf_lineaddr(l, &a);
		dwarf_lineendsequence(l, &end);
		if (end || a < lo)
			break;
		if (dwarf_lineno(l, &line) == 0 && line > 0) {
			pick_row(l, a, back);
			break;
		}
	}
}

enum how { HOW_ROW, HOW_REGION, HOW_NEXT, HOW_PREVIOUS, HOW_DECL };

/*
 * The line for 'pc' (DWARF address) whose own row is 'row'; see the top of
 * the file.  'limit' bounds the search for an offload region: the next
 * recorded code pointer (another construct's call) in DWARF addresses.
 */
static struct pick resolve_line(Dwarf_Die *cu, Dwarf_Die *scopes, int nscopes, Dwarf_Addr pc,
				struct pick row, enum construct_hint hint, Dwarf_Addr limit,
				enum how *how)
{
	struct pick none = { 0 }, fwd = { 0 }, back = { 0 }, region = { 0 };
	Dwarf_Die *fn = NULL;
	Dwarf_Addr lo = 0, hi = (Dwarf_Addr)-1, end;

	*how = HOW_ROW;
	if (row.line > 0 && hint != CONSTRUCT_KERNEL)
		return row;
	for (int i = 0; i < nscopes && !fn; i++)
		if (is_function(&scopes[i]))
			fn = &scopes[i];
	if (fn && die_range_at(fn, pc, &lo, &hi) != 0) {
		lo = 0;
		hi = (Dwarf_Addr)-1;
	}
	nearest_rows(cu, pc, lo, hi, &fwd, &back);
	/*
	 * A kernel launch is followed by its own region: trust that over the
	 * row.  For an unknown construct, only a region before the next line.
	 */
	end = limit < hi ? limit : hi;
	if (hint == CONSTRUCT_UNKNOWN && fwd.found && fwd.addr < end)
		end = fwd.addr;
	if (fn && hint != CONSTRUCT_DATA)
		find_offload(cu, fn, pc, end, &region);
	if (region.found) {
		if (region.line != row.line)
			*how = HOW_REGION;
		return region;
	}
	if (row.line > 0)
		return row;
	/* A next line past the next construct's call is that construct's. */
	if (fwd.found && fwd.addr >= limit)
		fwd.found = 0;
	*how = fwd.found ? HOW_NEXT : back.found ? HOW_PREVIOUS : HOW_DECL;
	if (fwd.found)
		return fwd;
	if (back.found)
		return back;
	if (fn && dwarf_decl_line(fn, &none.line) == 0 && none.line > 0) {
		none.found = 1;
		none.file = dwarf_decl_file(fn);
		return none;
	}
	none.line = 0;
	return none;
}

/* Flag and explain a line that is not the line table's own. */
static int line_note(struct location *out, enum how how, int row_line)
{
	int rc = 0;
	free(out->note);
	out->note = NULL;
	switch (how) {
	case HOW_ROW:
		return 0;
	case HOW_REGION:
		out->flags |= LOC_LINE_REGION;
		rc = asprintf(&out->note, "the line table says line %d at this kernel launch; the "
			      "line shown is that of its offload region", row_line);
		break;
	case HOW_NEXT:
		out->flags |= LOC_LINE_NEARBY;
		rc = asprintf(&out->note, "the line table says line %d here; the line shown is the "
			      "next statement's, the directive is just before it", row_line);
		break;
	case HOW_PREVIOUS:
		out->flags |= LOC_LINE_NEARBY;
		rc = asprintf(&out->note, "the line table says line %d here; the line shown is the "
			      "previous statement's, the directive is just after it", row_line);
		break;
	case HOW_DECL:
		out->flags |= LOC_LINE_NEARBY;
		rc = asprintf(&out->note, "the line table says line %d here; the line shown is the "
			      "function's", row_line);
		break;
	}
	if (rc < 0) {
		out->note = NULL;
		return -1;
	}
	return 0;
}

/* Append the callers of inlined code to out->inlined; *innermost gets the function at pc. */
static int inline_chain(Dwarf_Die *cu, Dwarf_Die *scopes, int n, struct location *out,
			const char **innermost)
{
	int i = 0;
	while (i < n && !is_function(&scopes[i]))
		i++;
	*innermost = i < n ? die_name(&scopes[i]) : NULL;
	while (i < n && dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
		Dwarf_Die *inl = &scopes[i];
		struct inline_frame *f, *grown;
		Dwarf_Word w;
		int j = i + 1;
		while (j < n && !is_function(&scopes[j]))
			j++;
		grown = realloc(out->inlined, (out->n_inlined + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		out->inlined = grown;
		f = &out->inlined[out->n_inlined++];
		memset(f, 0, sizeof(*f));
		if (set_function(&f->function, j < n ? die_name(&scopes[j]) : NULL) < 0 ||
		    set_str(&f->file, die_udata(inl, DW_AT_call_file, &w) == 0 ? cu_file(cu, w) : NULL) < 0)
			return -1;
		f->line = die_udata(inl, DW_AT_call_line, &w) == 0 ? (int)w : 0;
		f->column = die_udata(inl, DW_AT_call_column, &w) == 0 ? (int)w : 0;
		i = j;
	}
	return 0;
}

/*
 * The compilation unit holding pc.  dwfl_module_addrdie relies on
 * .debug_aranges, which clang does not emit and which libdw before 0.189 does
 * not make up from the units' ranges; then scan the units.
 */
static Dwarf_Die *cu_at(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
	if (cu)
		return cu;
	while ((cu = dwfl_module_nextcu(mod, cu, bias)) != NULL)
		if (dwarf_haspc(cu, pc - *bias) > 0)
			return cu;
	return NULL;
}

/*
 * One unit's scope tree, walked once.  The nodes are the DIEs with an address
 * range (low_pc or ranges: the others never contain pc, and libdw's walk
 * prunes them), in the unit's order, children only under the tags libdw's
 * walk descends into.  A lookup then goes down it exactly as dwarf_getscopes()
 * does: the first child containing pc, then its first child containing pc,
 * and so on; the deepest is the innermost scope.
 */
struct scope_node {
	Dwarf_Die die;
	int parent;         /* -1: a child of the unit */
	int child, next;    /* first child, next sibling: -1 none */
};

struct unit_scopes {
	Dwarf *dbg;
	Dwarf_Off off;      /* the unit DIE's */
	int unusable;       /* an imported unit, or deeper than SCOPES_DEPTH: libdw's calls */
	struct scope_node *n;
	size_t len, cap;
	int first;          /* the unit's first child node, -1 none */
};

/* Deeper scopes than this: the unit is left to libdw's calls. */
#define SCOPES_DEPTH 256

struct dwarfline_cache {
	struct unit_scopes *u;
	size_t n, cap;
};

struct dwarfline_cache *dwarfline_cache_new(void)
{
	return calloc(1, sizeof(struct dwarfline_cache));
}

void dwarfline_cache_free(struct dwarfline_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->u[i].n);
	free(c->u);
	free(c);
}

/* libdw's walk descends into these (libdw_visit_scopes.c: may_have_scopes). */
static int may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return 1;
	default:
		return 0;
	}
}

/* The children of 'parent' (a node index, -1: the unit) that have an address range, and theirs.  0, or -1. */
static int scopes_add(struct unit_scopes *u, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Die child;
	int prev = -1;

	if (dwarf_child(die, &child) != 0)
		return 0;
	if (depth == SCOPES_DEPTH) {
		u->unusable = 1;
		return 0;
	}
	do {
		int tag = dwarf_tag(&child), at;
		if (tag == DW_TAG_imported_unit) {
			u->unusable = 1;
			return 0;
		}
		if (!dwarf_hasattr(&child, DW_AT_low_pc) && !dwarf_hasattr(&child, DW_AT_ranges))
			continue;
		if (u->len == INT32_MAX || grow_one((void **)&u->n, &u->cap, u->len, sizeof(*u->n)) < 0)
			return -1;
		at = (int)u->len++;
		u->n[at] = (struct scope_node){ .die = child, .parent = parent, .child = -1, .next = -1 };
		if (prev >= 0)
			u->n[prev].next = at;
		else if (parent >= 0)
			u->n[parent].child = at;
		else
			u->first = at;
		prev = at;
		if (may_have_scopes(tag) && dwarf_haschildren(&child) > 0 && scopes_add(u, &child, at, depth + 1) < 0)
			return -1;
		if (u->unusable)
			return 0;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The unit's tree, walked the first time it is asked for; NULL when out of memory. */
static struct unit_scopes *unit_scopes(struct dwarfline_cache *c, Dwarf_Die *cu)
{
	Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct unit_scopes *u;

	for (size_t i = 0; i < c->n; i++)
		if (c->u[i].dbg == dbg && c->u[i].off == off)
			return &c->u[i];
	if (grow_one((void **)&c->u, &c->cap, c->n, sizeof(*c->u)) < 0)
		return NULL;
	u = &c->u[c->n];
	*u = (struct unit_scopes){ .dbg = dbg, .off = off, .first = -1 };
	if (scopes_add(u, cu, -1, 0) < 0) {
		free(u->n);
		return NULL;
	}
	c->n++;
	return u;
}

int dwarfline_scopes(struct dwarfline_cache *c, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	struct unit_scopes *u = unit_scopes(c, cu);
	int inner = -1, depth = 0;

	*scopes = NULL;
	if (!u || u->unusable)
		return -1;
	for (int i = u->first; i >= 0;) {
		if (dwarf_haspc(&u->n[i].die, pc) > 0) {
			inner = i;
			depth++;
			i = u->n[i].child;
		} else {
			i = u->n[i].next;
		}
	}
	if (inner < 0)
		return 0;
	if (!(*scopes = malloc((size_t)(depth + 1) * sizeof(**scopes))))
		return -1;
	depth = 0;
	for (int i = inner; i >= 0; i = u->n[i].parent)
		(*scopes)[depth++] = u->n[i].die;
	(*scopes)[depth++] = *cu;
	return depth;
}

int dwarfline_locate(struct dwarfline_cache *cache, Dwfl_Module *mod, Dwarf_Addr pc, enum construct_hint hint,
		     Dwarf_Addr limit, struct location *out)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = cu_at(mod, pc, &bias);
	Dwarf_Die *scopes = NULL;
	int nscopes = 0, rc = -1;
	int want = out->origin < ORIGIN_DWARF;
	const char *fn = NULL;

	if (cu) {
		Dwarf_Attribute attr;
		const char *dir = dwarf_attr(cu, DW_AT_comp_dir, &attr) ? dwarf_formstring(&attr) : NULL;
		if (set_str(&out->comp_dir, dir) < 0)
			goto out;
		nscopes = cache ? dwarfline_scopes(cache, cu, pc - bias, &scopes) : -1;
		if (nscopes < 0 && (nscopes = dwarf_getscopes(cu, pc - bias, &scopes)) > 0) {
			/*
			 * Past an inlined instance dwarf_getscopes goes on with
			 * the scopes of its abstract origin; the DIEs that
			 * physically contain the innermost scope name the callers.
			 */
			Dwarf_Die inner = scopes[0], *phys = NULL;
			int nphys = dwarf_getscopes_die(&inner, &phys);
			free(scopes);
			scopes = phys;
			nscopes = nphys;
		}
		if (nscopes < 0)
			nscopes = 0;
		if (inline_chain(cu, scopes, nscopes, out, &fn) < 0)
			goto out;
	}
	if (want && cu) {
		Dwarf_Line *l = dwarf_getsrc_die(cu, pc - bias);
		struct pick row = { 0 }, p = { 0 };
		enum how how = HOW_ROW;
		if (l) {
			row.found = 1;
			row.file = dwarf_linesrc(l, NULL, NULL);
			dwarf_lineno(l, &row.line);
			dwarf_linecol(l, &row.column);
			p = resolve_line(cu, scopes, nscopes, pc - bias, row, hint,
					 limit > bias ? limit - bias : 0, &how);
		}
		if (p.line > 0 && line_note(out, how, row.line) < 0)
			goto out;
		if (p.line > 0) {
			if (set_str(&out->file, p.file) < 0)
				goto out;
			out->line = p.line;
			out->column = p.column;
			out->origin = ORIGIN_DWARF;
		}
	}
	if (want && !out->function) {
		const char *name = out->origin == ORIGIN_DWARF && fn ? fn : NULL;
		if (!name)
			name = dwfl_module_addrname(mod, pc);
		if (set_function(&out->function, name) < 0)
			goto out;
	}
	if (want && out->origin < ORIGIN_DWARF) {
		if (out->function)
			out->origin = ORIGIN_SYMBOL;
		if (!cu)
			out->flags |= LOC_NEED_DEBUG;
	}
	rc = 0;
out:
	free(scopes);
	return rc;
}
