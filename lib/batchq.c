/*
 * batchq.c - a producer thread and a bounded ring of batches (lib/batchq.h).
 *
 * Batch k (counted from 0) lives in buffer k % nbatches.  The producer may
 * fill batch k once batch k - nbatches was released by the consumer; the
 * consumer may take batch k once the producer has published it.  Both wait
 * on one condition variable each; the counters are only touched under the
 * mutex, the buffers only by their owner of the moment.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/batchq.h"
#include "lib/huge.h"

struct batchq {
	size_t rec_size, per_batch, nbatches;
	unsigned char *buf;          /* nbatches * per_batch records */
	size_t *count;               /* records in each buffer */
	pthread_mutex_t lock;
	pthread_cond_t can_fill, can_take;
	/* Under the lock. */
	size_t published;            /* batches handed to the consumer */
	size_t released;             /* batches the consumer is done with */
	int done, cancelled, status;
	/* The producer's own. */
	size_t filling;              /* records in batch 'published' so far; 0: not started */
	int (*producer)(void *arg, struct batchq *q);
	void *arg;
	pthread_t thread;
	/* The consumer's own. */
	size_t taken;                /* batches taken (the last one is held until the next take) */
};

struct batchq *batchq_new(size_t rec_size, size_t per_batch, size_t nbatches)
{
	struct batchq *q;

	if (!rec_size || !per_batch || nbatches < 2)
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->rec_size = rec_size;
	q->per_batch = per_batch;
	q->nbatches = nbatches;
	q->buf = malloc(nbatches * per_batch * rec_size);
	huge_advise(q->buf, nbatches * per_batch * rec_size);
	q->count = calloc(nbatches, sizeof(*q->count));
	if (!q->buf || !q->count) {
		free(q->buf);
		free(q->count);
		free(q);
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->can_fill, NULL);
	pthread_cond_init(&q->can_take, NULL);
	return q;
}

/* Hand the batch being filled to the consumer (the lock held). */
static void publish_locked(struct batchq *q)
{
	q->count[q->published % q->nbatches] = q->filling;
	q->published++;
	q->filling = 0;
	pthread_cond_signal(&q->can_take);
}

void *batchq_slot(struct batchq *q)
{
	if (!q->filling) {
		/* A new batch: its buffer must be free (batch published - nbatches released). */
		pthread_mutex_lock(&q->lock);
		while (!q->cancelled && q->published - q->released >= q->nbatches)
			pthread_cond_wait(&q->can_fill, &q->lock);
		if (q->cancelled) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		pthread_mutex_unlock(&q->lock);
	}
	return q->buf + ((q->published % q->nbatches) * q->per_batch + q->filling) * q->rec_size;
}

void batchq_push(struct batchq *q)
{
	if (++q->filling < q->per_batch)
		return;
	pthread_mutex_lock(&q->lock);
	publish_locked(q);
	pthread_mutex_unlock(&q->lock);
}

static void *run(void *arg)
{
	struct batchq *q = arg;
	int status = q->producer(q->arg, q);

	pthread_mutex_lock(&q->lock);
	if (q->filling && !q->cancelled)
		publish_locked(q);
	q->status = status;
	q->done = 1;
	pthread_cond_signal(&q->can_take);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int batchq_start(struct batchq *q, int (*producer)(void *arg, struct batchq *q), void *arg)
{
	q->producer = producer;
	q->arg = arg;
	return pthread_create(&q->thread, NULL, run, q) == 0 ? 0 : -1;
}

size_t batchq_take(struct batchq *q, const void **recs)
{
	size_t n = 0;

	pthread_mutex_lock(&q->lock);
	if (q->released < q->taken) {
		/* The batch taken last is done with: its buffer can be filled again. */
		q->released = q->taken;
		pthread_cond_signal(&q->can_fill);
	}
	while (!q->cancelled && q->taken == q->published && !q->done)
		pthread_cond_wait(&q->can_take, &q->lock);
	if (!q->cancelled && q->taken < q->published) {
		size_t b = q->taken % q->nbatches;
		*recs = q->buf + b * q->per_batch * q->rec_size;
		n = q->count[b];
		q->taken++;
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

void batchq_cancel(struct batchq *q)
{
	pthread_mutex_lock(&q->lock);
	q->cancelled = 1;
	pthread_cond_signal(&q->can_fill);
	pthread_mutex_unlock(&q->lock);
}

int batchq_consume(struct batchq *q, int (*each)(void *arg, const void *rec), void *arg)
{
	const void *recs;
	size_t n;

	while ((n = batchq_take(q, &recs)) > 0) {
		for (size_t i = 0; i < n; i++) {
			int stop = each(arg, (const char *)recs + i * q->rec_size);
			if (stop) {
				batchq_cancel(q);
				return stop;
			}
		}
	}
	return 0;
}

int batchq_finish(struct batchq *q)
{
	pthread_join(q->thread, NULL);
	return q->status;
}

void batchq_free(struct batchq *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->can_fill);
	pthread_cond_destroy(&q->can_take);
	free(q->buf);
	free(q->count);
	free(q);
}

int batchq_serial(void)
{
	const char *v = getenv("MAPPROF_REPORT_SERIAL");

	return v && !strcmp(v, "1");
}

int batchq_wanted(void)
{
	return !batchq_serial() && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}
