/*
 * dwarfline.h - for report/attribute/symbolize.c only: an address of one module to
 * function, file, line and inline chain with libdw, including the line-0
 * resolution for clang's offload launch sequences.
 */
#ifndef MAPPROF_REPORT_DWARFLINE_H
#define MAPPROF_REPORT_DWARFLINE_H

#include <elfutils/libdwfl.h>

#include "report/attribute/symbolize.h"

struct dwarfline_cache;

/* What the recording says about the construct at a code pointer. */
enum construct_hint {
	CONSTRUCT_UNKNOWN,   /* no target record */
	CONSTRUCT_KERNEL,    /* a 'target' construct (ompt_target, _nowait) */
	CONSTRUCT_DATA,      /* target data / enter / exit / update */
};

/*
 * Fill what the module's debug information and symbol table say about 'pc'
 * (an address in the Dwfl's address space, already codeptr - 1):
 *  - always: out->inlined and out->comp_dir when DWARF covers pc;
 *  - when out->origin is below ORIGIN_DWARF: function, file, line, column,
 *    and origin DWARF (a line was found), SYMBOL (only an ELF symbol) or
 *    unchanged; sets LOC_LINE_REGION / LOC_LINE_NEARBY / LOC_NEED_DEBUG,
 *    and out->note when the line is not the line table's own.
 * 'limit' is the next recorded code pointer after pc (Dwfl addresses; ~0
 * when none): another construct's code starts before it.
 * Returns 0, or -1 when out of memory.
 */
int dwarfline_locate(struct dwarfline_cache *cache, Dwfl_Module *mod, Dwarf_Addr pc, enum construct_hint hint,
		     Dwarf_Addr limit, struct location *out);

/*
 * The scope DIEs of the compilation units looked at, each unit walked once:
 * dwarf_getscopes() walks a unit's whole DIE tree (twice) at every call, and
 * dwarf_getscopes_die() once more, 1.2 M instructions an address in
 * bench/real/tealeaf.c, most of what recording a short run cost after it.
 * Owned by one symbolizer, freed before its Dwfl ends; NULL: libdw's calls.
 */
struct dwarfline_cache *dwarfline_cache_new(void);
void dwarfline_cache_free(struct dwarfline_cache *cache);

/*
 * What dwarf_getscopes() and dwarf_getscopes_die() of its innermost scope
 * give: the DIEs that physically contain pc (a unit-relative address),
 * innermost first, the unit last, in *scopes (free()).  The count (0: none
 * contains pc), or -1 (out of memory, or DWARF this cache does not walk:
 * then ask libdw).  For tests/unit/test_symbolize.c, which holds it to
 * libdw's answer at every address.
 */
int dwarfline_scopes(struct dwarfline_cache *cache, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes);

#endif
