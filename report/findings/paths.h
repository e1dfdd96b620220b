/*
 * paths.h - source files as a person reads them: relative to the program's
 * source root.
 *
 * The root is the one given (--source-root DIR), else the longest common
 * directory of the source files the findings name (their locations and
 * origins).  report.json keeps the full path in "file" and adds the
 * relative one; the summary and report.html show the relative one.
 */
#ifndef MAPPROF_REPORT_PATHS_H
#define MAPPROF_REPORT_PATHS_H

struct analysis;

/*
 * The common directory of the files the findings' locations name, without
 * a trailing '/'; NULL when there is none (no file, or only "/" in common).
 * The caller owns (frees) it.
 */
char *source_root_find(const struct analysis *a);

/*
 * 'root' as given by a user, made fit to compare: trailing '/'s dropped
 * (malloc'ed, the caller frees it); NULL when it is empty or out of memory.
 */
char *source_root_clean(const char *root);

/*
 * 'file' relative to 'root' (a pointer into 'file', borrowed like it), or
 * 'file' itself when it is not under 'root' (or root is NULL).
 */
const char *path_relative(const char *root, const char *file);

#endif
