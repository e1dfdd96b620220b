#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int regions = atoi(argv[1]);
	long total = 0;
#pragma omp parallel num_threads(4) reduction(+: total)
	{
		double a[4] = { 1, 2, 3, 4 }, b[4];
		for (int r = 0; r < regions; r++) {
#pragma omp target map(to: a[0:4]) map(from: b[0:4])
			for (int i = 0; i < 4; i++)
				b[i] = a[i] * 2;
			total += b[3] == 8;
		}
	}
	printf("%ld\n", total);
	return 0;
}
