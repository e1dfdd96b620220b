/*
 * paths.c - the source root and paths relative to it.
 */
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "report/findings/paths.h"
#include "report/findings/analysis.h"

/* Shorten *root (a directory, malloc'ed) to what it has in common with file's directory. */
static void common_dir(char **root, const char *file)
{
	const char *slash = strrchr(file, '/');
	size_t n = slash ? (size_t)(slash - file) : 0, i = 0;

	if (!*root) {
		*root = strndup(file, n);
		return;
	}
	while ((*root)[i] && i < n && (*root)[i] == file[i])
		i++;
	/* Whole components only: "src/ab" and "src/ac" have "src" in common. */
	if (!((*root)[i] == '\0' && (i == n || file[i] == '/')))
		while (i > 0 && (*root)[i] != '/')
			i--;
	(*root)[i] = '\0';
}

static void add_file(char **root, int *seen, struct attribution *at, uint64_t addr)
{
	json_t *src = addr ? attribution_location(at, addr) : NULL;
	const char *file = json_string_value(json_object_get(src, "file"));

	if (file && *file) {
		/* An absolute path and a relative one have nothing in common. */
		if (*seen && *root && (**root == '/') != (*file == '/'))
			**root = '\0';
		else if (!*seen || (*root && **root))
			common_dir(root, file);
		*seen = 1;
	}
	json_decref(src);
}

char *source_root_find(const struct analysis *a)
{
	char *root = NULL;
	int seen = 0;

	if (!a->attr)
		return NULL;
	for (size_t i = 0; i < a->findings.n; i++) {
		const struct finding *g = &a->findings.v[i];
		for (int j = 0; j < g->nlocations; j++)
			add_file(&root, &seen, a->attr, g->locations[j]);
		for (int j = 0; j < g->norigins; j++)
			add_file(&root, &seen, a->attr, g->origins[j]);
	}
	if (root && !*root) {
		free(root);
		root = NULL;
	}
	return root;
}

char *source_root_clean(const char *root)
{
	size_t n = root ? strlen(root) : 0;

	while (n > 1 && root[n - 1] == '/')
		n--;
	return n ? strndup(root, n) : NULL;
}

const char *path_relative(const char *root, const char *file)
{
	size_t n = root ? strlen(root) : 0;

	if (!file || !n)
		return file;
	if (!strcmp(root, "/"))
		return *file == '/' && file[1] ? file + 1 : file;
	if (!strncmp(file, root, n) && file[n] == '/' && file[n + 1])
		return file + n + 1;
	return file;
}
