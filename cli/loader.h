/*
 * loader.h - why a program could not start, in the dynamic loader's own
 * words: the shared libraries it could not find, and where they are.
 */
#ifndef MAPPROF_CLI_LOADER_H
#define MAPPROF_CLI_LOADER_H

/*
 * For a program that ended with status 127 before the collector loaded:
 * asks the loader (LD_TRACE_LOADED_OBJECTS, only for a dynamically linked
 * ELF file, which the loader then does not run) which libraries it cannot
 * find.  A malloc'ed sentence naming them and the fix, or NULL when the
 * loader finds everything (or the program is no such file).  For a file
 * that is no dynamically linked ELF (a script, a wrapper), the sentence
 * says what 127 means there, since the loader's words went to its stderr.
 */
char *loader_diagnosis(const char *program);

#endif
