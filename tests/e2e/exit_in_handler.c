/*
 * exit_in_handler.c - four threads offload and bring data back in a loop;
 * SIGALRM's handler calls _exit() after 0.3 s, cutting into whatever lock a
 * thread holds (write tracking's, the buffers'): tests/e2e/exit_in_handler.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <signal.h>
#include <pthread.h>
#define N (1<<16)
static void h(int s) { (void)s; _exit(0); }
static void *worker(void *arg) {
	(void)arg;
	double *a = malloc(N * sizeof(double));
	for (int i = 0; i < N; i++) a[i] = i;
	#pragma omp target enter data map(to: a[0:N])
	for (;;) {
		#pragma omp target
		for (int i = 0; i < N; i++) a[i] += 1;
		#pragma omp target update from(a[0:N])
	}
	return NULL;
}
int main(void) {
	pthread_t th[3];
	signal(SIGALRM, h);
	for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, worker, NULL);
	ualarm(300000, 0);
	worker(NULL);
	return 0;
}
