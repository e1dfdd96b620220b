/*
 * common.h - the size of the accuracy pairs' data: 32 MiB a buffer, so that
 * one transfer takes milliseconds on host offload and a run's redundant
 * work is tens of milliseconds, well above the noise of one operation.
 */
#ifndef ACCURACY_COMMON_H
#define ACCURACY_COMMON_H

#define N (4 << 20)      /* doubles: 32 MiB */
#define STRIDE 4096      /* kernels touch one double in STRIDE: light, mapping dominates */

#endif
