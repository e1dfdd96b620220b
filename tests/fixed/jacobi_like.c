/*
 * jacobi_like.c - a Jacobi solver offloaded one step at a time, the way a
 * first port of a stencil code often is: every target region in the time
 * loop maps its arrays itself, nothing stays on the device between them,
 * and the two grids are swapped by pointer after each sweep.
 *
 * Per step (STEPS = 4; grids of NX * NY = 64 * 64 doubles, 32768 B each):
 *   sweep():    map(tofrom: f) (f is only read), map(to: u), map(from: unew),
 *               then u and unew swap, so the two heap grids A and B take
 *               turns as u and unew;
 *   residual(): map(tofrom: u) (only read), map(to: f), map(tofrom: err).
 * After the loop, a leftover "enter data map(to: u)" / "exit data" pair
 * for a post-processing step that now runs on the host.
 *
 * What the report finds, among others: round trips of both flavours on the
 * same lines (f comes back from sweep() unchanged, host->device->host, and
 * is sent again by residual(), device->host->device; u likewise in
 * residual()), each split by grid (A or B) because of the swap; duplicate
 * transfers of f and of err; repeated allocations of everything; an unused
 * transfer and an unused allocation after the loop.
 *
 * Data operations (all on device 0; f, u, unew 32768 B, err 8 B):
 *   4 steps, sweep:    f    alloc 1, to_device 1, from_device 1, delete 1
 *                      u    alloc 1, to_device 1, delete 1
 *                      unew alloc 1, from_device 1, delete 1
 *                      kernel 1
 *   4 steps, residual: u    alloc 1, to_device 1, from_device 1, delete 1
 *                      f    alloc 1, to_device 1, delete 1
 *                      err  alloc 1, to_device 1, from_device 1, delete 1
 *                      kernel 1
 *   after the loop:    u    alloc 1, to_device 1, delete 1
 * Totals: alloc 25, to_device 21, from_device 16, delete 25, kernel 8.
 * Equal hashes: f's content (8 transfers in sweep(), 4 in residual(): 12);
 * each step's new grid (unew out of sweep, u into and out of residual, u
 * into the next sweep or, after the last step, into the leftover enter
 * data: 4 groups of 4); err sent as 0 (4); err returned (4: the largest
 * residual, f/4 next to the boundary, is the same after every step); so 7
 * groups.
 *
 * tests/fixed/jacobi_like.c: the fix a developer would make for the findings of
 * samples/jacobi_like.c (marked "The fix"; the comments above are the sample's).
 * tests/e2e/diff_samples.sh diffs the two.
 */
#include <stdio.h>
#include <stdlib.h>

#define NX 64
#define NY 64
#define STEPS 4

/* One Jacobi sweep of -laplace(u) = f on the interior points. */
static void sweep(double *f, const double *u, double *unew)
{
#pragma omp target teams distribute parallel for map(to: f[0:NX*NY]) map(to: u[0:NX*NY]) map(from: unew[0:NX*NY])
	for (int i = 0; i < NX * NY; i++) {
		int x = i % NX, y = i / NX;
		if (x == 0 || y == 0 || x == NX - 1 || y == NY - 1)
			unew[i] = u[i];
		else
			unew[i] = 0.25 * (u[i - 1] + u[i + 1] + u[i - NX] + u[i + NX] + f[i]);
	}
}

/* The largest change a sweep would still make: only reads u and f (now map(to:)). */
static double residual(double *u, const double *f)
{
	double err = 0.0;

#pragma omp target teams distribute parallel for map(to: u[0:NX*NY]) map(to: f[0:NX*NY]) map(tofrom: err) reduction(max: err)
	for (int i = 0; i < NX * NY; i++) {
		int x = i % NX, y = i / NX;
		if (x == 0 || y == 0 || x == NX - 1 || y == NY - 1)
			continue;
		double r = 0.25 * (u[i - 1] + u[i + 1] + u[i - NX] + u[i + NX] + f[i]) - u[i];
		if (r < 0)
			r = -r;
		if (r > err)
			err = r;
	}
	return err;
}

int main(void)
{
	double *f = malloc(NX * NY * sizeof(*f));
	double *u = calloc(NX * NY, sizeof(*u));
	double *unew = calloc(NX * NY, sizeof(*unew));
	double err = 0.0, sum = 0.0;

	if (!f || !u || !unew)
		return 1;
	for (int i = 0; i < NX * NY; i++)
		f[i] = 1.0 / (NX * NY);

	/*
	 * The fix: both grids and f stay on the device for the whole time loop
	 * (the kernels find them present and move nothing): f and u go once,
	 * unew is scratch (map(alloc:)), the latest grid comes back once at the
	 * end.  The leftover enter/exit data pair is gone.
	 */
#pragma omp target data map(to: f[0:NX*NY], u[0:NX*NY]) map(alloc: unew[0:NX*NY])
	{
		for (int step = 0; step < STEPS; step++) {
			double *t;

			sweep(f, u, unew);
			t = u;
			u = unew;
			unew = t;
			err = residual(u, f);
		}
#pragma omp target update from(u[0:NX*NY])
	}

	for (int i = 0; i < NX * NY; i++)
		sum += u[i];

	printf("jacobi_like: steps=%d residual=%.3e sum=%.6e\n", STEPS, err, sum);
	free(f);
	free(u);
	free(unew);
	return 0;
}
