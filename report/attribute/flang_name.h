/*
 * flang_name.h - flang's internal names ("_QMfieldPstep", "_QQmain") as a
 * person reads them ("field::step", "main"), for the function names of
 * locations and the kernels table of Fortran programs built with flang.
 *
 * flang lower-cases every Fortran identifier and puts upper-case tags
 * before each part of a name after the "_Q" prefix, outermost scope first
 * (flang's docs, "Bijective Internal Name Uniquing"): M module, S
 * submodule, F host procedure, B block, P procedure, E variable, EC
 * constant, C common block, N namelist, T derived type with K/KN kind
 * values, D/Y/YI compiler-made tables, Q a name the compiler made
 * ("_QQmain": the main program).  An offload entry point
 * "__omp_offloading_<dev>_<file>_<name>_l<line>" holds one such name.
 */
#ifndef MAPPROF_REPORT_FLANG_NAME_H
#define MAPPROF_REPORT_FLANG_NAME_H

/*
 * The readable form of 'name' (malloc'ed: the caller frees it), scopes
 * joined by "::" ("field::step", "field::n", "sub::x", "common /blk/",
 * "t(kind=4,8)", "main"); an offload entry point keeps its prefix and line
 * around it ("__omp_offloading_fe00_51a372_field::step_l15").  NULL when
 * 'name' is not a flang internal name (or out of memory): show it as it is.
 */
char *flang_name_demangle(const char *name);

#endif
