/*
 * source_path.h - the source file of a stored location as a path: what
 * the compiler recorded (location.file), joined to its compilation
 * directory (location.comp_dir) when it is relative.  For the outputs that
 * name files for other tools (SARIF): report.json keeps the file as
 * recorded.
 */
#ifndef MAPPROF_DB_SOURCE_PATH_H
#define MAPPROF_DB_SOURCE_PATH_H

#include <stdint.h>

struct db;

/*
 * The file of the location of 'codeptr' (malloc'ed, the caller's), absolute
 * when the recorded file or its compilation directory is; NULL when the
 * database holds no file for it (or no attribution tables).
 */
char *db_source_path(struct db *db, uint64_t codeptr);

#endif
