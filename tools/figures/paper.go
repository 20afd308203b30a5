package main

// The papers' published values, digitised from their text in
// /work/shared/seeds (the figures themselves are images the text does
// not carry, so only what the text states is here; captions say so).
// Each constant names where it comes from.

// Virtual-log paper (Wang, Anderson, Patterson, OSDI 1999).
const (
	// Section 2.1: "even at a relatively high utilization of 80%, we can
	// expect to incur only a four-sector rotational delay" (formula (1)
	// gives (1-p)n/(1+pn) = 3.9 sectors for n = 256, p = 0.2).
	vlogSectorsAt80 = 4.0
	// Section 2.2: "the half-rotation delays of 7 ms for the HP and 3 ms
	// for the Seagate that an update-in-place system may incur".
	vlogHalfRotHPMs      = 7.0
	vlogHalfRotSeagateMs = 3.0
	// Section 2.2: the latency "has improved by nearly an order of
	// magnitude on the newer Seagate disk compared to the HP disk".
	vlogHPOverSeagate = 10.0
	// Section 4 (VLD): tracks are filled to 75 %, i.e. a threshold of 25 %
	// of a track's sectors left free.
	vlogFillThreshold = 0.25
	// Section 1 and 5.4, Table 2: on the ST19101 with the UltraSPARC-170,
	// eager writing runs synchronous updates "about ten times" / "almost an
	// order of magnitude" faster than update in place.
	vlogSpeedupST19101 = 10.0
)

// Batching paper (Carson and Setia).
const (
	// Section 3: D = 23.75 ms, sigma^2 = 44.2305 ms^2, k = 4 ms per 8 KB
	// block, so c* = 6.17; "the read response time is minimized for a
	// batch size of 6 or 7 for all combinations of read and write loads".
	batchPaperCStar = 6.17
	batchPaperDMs   = 23.75
	batchPaperBest1 = 6
	batchPaperBest2 = 7
)

// Range-writes paper (Anand et al., OSDI 2008), HP C2247A.
const (
	// Section 4.4.2: one choice of one block "over 12 ms"; 100-block
	// ranges with 64 choices "roughly 4 ms": over a factor of three.
	rangesOneChoiceMs = 12.0
	rangesBestMs      = 4.0
	rangesHeadline    = 3.0
	// Figure 8's text: with one option every write waits a full
	// revolution (5400 RPM: 11.1 ms); eight equally spaced choices
	// capture "most of the performance benefit".
	rangesRevolutionMs = 60000.0 / 5400.0
	rangesEnoughChoice = 8
)

// Bark (range-writes paper, Table 3): TPC-B speed-up over the plain
// journal, cached run: 44.2 s / 27.3 s - 1 = 61.9 %.
const barkCachedSpeedup = 0.619
