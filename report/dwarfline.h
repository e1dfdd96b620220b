/*
 * dwarfline.h - for report/symbolize.c only: an address of one module to
 * function, file, line and inline chain with libdw, including the line-0
 * resolution for clang's offload launch sequences.
 */
#ifndef MAPPROF_REPORT_DWARFLINE_H
#define MAPPROF_REPORT_DWARFLINE_H

#include <elfutils/libdwfl.h>

#include "report/symbolize.h"

/*
 * Fill what the module's debug information and symbol table say about 'pc'
 * (an address in the Dwfl's address space, already codeptr - 1):
 *  - always: out->inlined and out->comp_dir when DWARF covers pc;
 *  - when out->origin is below ORIGIN_DWARF: function, file, line, column,
 *    and origin DWARF (a line was found), SYMBOL (only an ELF symbol) or
 *    unchanged; sets LOC_LINE_NEARBY / LOC_NEED_DEBUG as they apply.
 * Returns 0, or -1 when out of memory.
 */
int dwarfline_locate(Dwfl_Module *mod, Dwarf_Addr pc, struct location *out);

#endif
