// LDFLAGS: -lxxhash
/*
 * async_pageable.c - the async-hash check cases (async_common.h) on host
 * memory from malloc: pageable, which a GPU runtime copies through a staging
 * buffer (the CUDA plugin's copy into it returns when it is complete).
 */
#include "async_common.h"

int main(int argc, char **argv)
{
	return run_all(MEM_PAGEABLE, argc, argv);
}
