// LDFLAGS: -lxxhash
/*
 * async_pinned.c - the async-hash check cases (async_common.h) on pinned
 * host memory from llvm_omp_target_alloc_host (what omp_alloc with
 * llvm_omp_target_host_mem_alloc gives too), which a GPU copies into by DMA
 * asynchronously: where a hash at the data op's end is most likely stale.
 */
#include "async_common.h"

int main(int argc, char **argv)
{
	return run_all(MEM_PINNED, argc, argv);
}
