// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the clock. kvb_now_ns() itself is inline (kvbench.h): every
 * layer reads it, and the engine's latency samples hold one read each.
 */
#include "kvbench.h"

/* What one kvb_now_ns() costs: each latency sample holds one. */
double kvb_clock_cost(void)
{
	__u64 t0, sink = 0;
	int i;

	for (i = 0; i < 1000; i++)	/* fault in the vDSO, warm the caches */
		sink += kvb_now_ns();
	t0 = kvb_now_ns();
	for (i = 0; i < 10000; i++)
		sink += kvb_now_ns();
	return sink ? (kvb_now_ns() - t0) / 10000.0 : 0;
}
