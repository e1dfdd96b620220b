/*
 * mpi_ranks.c - an MPI program whose every rank offloads, a different
 * amount per rank.
 *
 * Built with mpicc (OMPI_CC=clang-19 ... -fopenmp-targets=...), not by
 * 'make samples': see the Makefile's MPI_SAMPLES.  Rank r runs r + 1 target
 * regions, each map(tofrom: a) with a kernel; rank 0 prints one line with
 * the sum of every rank's result.
 *
 * Data operations per rank r (all on device 0; N = 1024, 4-byte elements):
 *   alloc r+1, to_device r+1, from_device r+1, delete r+1, kernel r+1.
 * With 4 ranks: 1, 2, 3, 4 of each (totals 10).
 */
#include <mpi.h>
#include <stdio.h>

#define N 1024

static int a[N];

int main(int argc, char **argv)
{
	int rank, size, mine, total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int k = 0; k <= rank; k++) {
#pragma omp target map(tofrom: a)
		for (int i = 0; i < N; i++)
			a[i] += 1;
	}
	mine = a[0];
	MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_ranks: %d ranks, %d regions\n", size, total);
	MPI_Finalize();
	return 0;
}
