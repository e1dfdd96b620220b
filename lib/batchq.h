/*
 * batchq.h - a producer thread handing fixed-size records to the caller's
 * thread in batches, through a bounded ring.
 *
 * The report reads its events from SQLite and analyses them; on a machine
 * with two cores these can overlap: one thread steps the statements and
 * builds the records, the other consumes them.  Records travel in batches
 * (one lock and one wake-up per batch, not per record) through a ring of a
 * few batches, so memory is bounded whatever the length of the run, and the
 * producer waits when the consumer is behind.  The order of the records is
 * the order they were made in: what the consumer computes is what one thread
 * would have computed.
 *
 * The producer owns whatever it reads (a database connection) until
 * batchq_finish() has returned; the consumer must not touch it meanwhile.
 */
#ifndef MAPPROF_LIB_BATCHQ_H
#define MAPPROF_LIB_BATCHQ_H

#include <stddef.h>

struct batchq;

/*
 * A queue of records of rec_size bytes, per_batch to a batch, nbatches
 * batches in the ring (2 at least).  NULL out of memory.
 */
struct batchq *batchq_new(size_t rec_size, size_t per_batch, size_t nbatches);

/*
 * Start producer(arg, q) on a thread of its own.  It calls batchq_slot()
 * and batchq_push() for each record and returns its status (the queue is
 * closed after it).  0, or -1 when no thread could be started (the caller
 * can then do the work itself).
 */
int batchq_start(struct batchq *q, int (*producer)(void *arg, struct batchq *q), void *arg);

/*
 * Producer: where to write the next record (rec_size bytes).  NULL once the
 * consumer has given up (batchq_cancel()): the producer should then return.
 */
void *batchq_slot(struct batchq *q);

/* Producer: the record written at batchq_slot() is done. */
void batchq_push(struct batchq *q);

/*
 * Consumer: the next batch (*recs, the number of records returned), valid
 * until the next call; 0 once the producer has returned and every record
 * was taken.
 */
size_t batchq_take(struct batchq *q, const void **recs);

/* Consumer: take no more (the producer's next batchq_slot() is NULL). */
void batchq_cancel(struct batchq *q);

/*
 * Consumer: every record, in order, through each(arg, rec) until it returns
 * non-zero (then batchq_cancel(), and that value) or the producer is done
 * and all is taken (0).  Then batchq_finish() as ever.
 */
int batchq_consume(struct batchq *q, int (*each)(void *arg, const void *rec), void *arg);

/* Wait for the producer's end: its status.  Call once, after batchq_start() succeeded. */
int batchq_finish(struct batchq *q);

/* Accepts NULL.  The producer must have finished. */
void batchq_free(struct batchq *q);

/*
 * MAPPROF_REPORT_SERIAL=1: the report works as it did before its reading
 * thread (one thread, and the page timeline reads the tables itself), so
 * that tests can compare the two ways' outputs byte for byte.
 */
int batchq_serial(void);

/* Whether a second thread is worth starting: more than one processor online, and not serial. */
int batchq_wanted(void);

#endif
