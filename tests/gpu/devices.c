/*
 * devices.c - the OpenMP devices this runtime offers and whether a target
 * region on each runs off the host: scripts/gpu-check.sh's device list.
 *
 * Prints "DEVICES num=N initial=I default=D" and one line per device,
 * "DEVICE d offloaded=yes|no teams=T threads=H".  OMP_TARGET_OFFLOAD
 * (default: fall back to the host) decides what a device that cannot run
 * the region does.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int num = omp_get_num_devices();

	printf("DEVICES num=%d initial=%d default=%d\n", num, omp_get_initial_device(),
	       omp_get_default_device());
	for (int d = 0; d < num; d++) {
		int initial = 1, teams = 0, threads = 0;

		/* Three regions: OpenMP allows these calls only where each stands. */
#pragma omp target device(d) map(from: initial)
		initial = omp_is_initial_device();
#pragma omp target teams device(d) map(from: teams)
		if (omp_get_team_num() == 0)
			teams = omp_get_num_teams();
#pragma omp target parallel device(d) map(from: threads)
		if (omp_get_thread_num() == 0)
			threads = omp_get_num_threads();
		printf("DEVICE %d offloaded=%s teams=%d threads=%d\n", d, initial ? "no" : "yes",
		       teams, threads);
	}
	return 0;
}
