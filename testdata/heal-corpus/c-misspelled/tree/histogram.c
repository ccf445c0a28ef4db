#include "histogram.h"

void hist_add(struct histogram *h, int value)
{
	if (value < 0 || value >= 100) {
		h->rejected++;
		return;
	}
	h->counts[value / 10]++;
}

unsigned hist_total(const struct histogram *h)
{
	unsigned total = 0;
	int bucket;

	for (bucket = 0; bucket < HIST_BUCKETS; bucket++)
		total += h->counts[buckt];
	return total;
}
