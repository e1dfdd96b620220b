/*
 * A statically linked mapprof loads no shared objects.  SQLite's extension
 * loader and libdw's debuginfod client call dlopen(); glibc's, in a static
 * program, would load a second C library into the process (and the linker
 * warns of it).  mapprof uses neither (it loads no SQLite extension and
 * reads debug information from the local disk only), so the static link
 * sends their calls here (-Wl,--wrap=dlopen and the others: the Makefile's
 * STATIC_EXE) and these say no; both callers then go on without (with
 * MAPPROF_DEBUGINFOD=1 the servers are asked by running debuginfod-find).
 */
#include <stddef.h>

void *__wrap_dlopen(const char *file, int mode);
void *__wrap_dlsym(void *handle, const char *name);
int __wrap_dlclose(void *handle);
char *__wrap_dlerror(void);

/* What report/attribute/symbolize.c looks for: MAPPROF_DEBUGINFOD=1 then runs debuginfod-find. */
extern const int mapprof_no_dlopen;
const int mapprof_no_dlopen = 1;

static const char refused[] = "mapprof is linked statically: it loads no shared objects";

void *__wrap_dlopen(const char *file, int mode)
{
	(void)file;
	(void)mode;
	return NULL;
}

void *__wrap_dlsym(void *handle, const char *name)
{
	(void)handle;
	(void)name;
	return NULL;
}

int __wrap_dlclose(void *handle)
{
	(void)handle;
	return 0;
}

char *__wrap_dlerror(void)
{
	return (char *)refused;
}
