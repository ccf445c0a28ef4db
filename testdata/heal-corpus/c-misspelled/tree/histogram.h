#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#define HIST_BUCKETS 10

/* Counts values of [0, 100) into ten buckets of width 10. */
struct histogram {
	unsigned counts[HIST_BUCKETS];
	unsigned rejected;
};

void hist_add(struct histogram *h, int value);
unsigned hist_total(const struct histogram *h);

#endif
