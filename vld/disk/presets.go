package disk

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// presets maps each preset name to a constructor, so every call returns a
// fresh Model the caller may modify.
func presets() map[string]func() *Model {
	return map[string]func() *Model{
		"hp97560":      hp97560,
		"st19101":      st19101,
		"hpc2247a":     hpc2247a,
		"carson-setia": carsonSetia,
		"st4000nm0023": st4000nm0023,
	}
}

// PresetNames lists the preset names in sorted order.
func PresetNames() []string {
	p := presets()
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns a fresh copy of a named preset.
func Preset(name string) (*Model, error) {
	mk, ok := presets()[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPreset, name, strings.Join(PresetNames(), ", "))
	}
	return mk(), nil
}

// hp97560 is the HP 97560 as used by the virtual-log paper.
// Sources: virtual-log paper (Wang, Anderson, Patterson, OSDI 1999) Table 1
// for sectors per track (72), surfaces (19), head switch (2.5 ms), minimum
// seek (3.6 ms), 4002 RPM and SCSI overhead (2.3 ms), which its experiments
// used; Ruemmler & Wilkes, "An introduction to disk drive modeling" (IEEE
// Computer 1994) for the 1962 cylinders, the seek curve and the 8/18-sector
// track/cylinder skews. Ruemmler & Wilkes give 1.6 ms head switch and
// 2.2 ms overhead; the paper's values win. No write settle is modelled.
func hp97560() *Model {
	return &Model{
		Name:      "hp97560",
		Source:    "virtual-log paper Table 1; Ruemmler & Wilkes 1994 (cylinders, seek curve, skews)",
		Cylinders: 1962,
		Surfaces:  19,
		Zones:     []Zone{{FirstCyl: 0, LastCyl: 1961, SectorsPerTrack: 72, TrackSkew: 8, CylSkew: 18}},
		RPM:       4002,
		Seek: SeekCurve{
			Boundary: 383, ShortA: 3.24, ShortB: 0.400, LongA: 8.00, LongB: 0.008,
			MinMs: 3.6,
		},
		HeadSwitchMs:    2.5,
		WriteOverheadMs: 2.3,
		ReadOverheadMs:  2.3,
	}
}

// st19101 is the Seagate ST19101 (Cheetah 9) as a single-zone disk.
// Sources: virtual-log paper Table 1 for 256 sectors per track, 16
// surfaces, 0.5 ms head switch, 0.5 ms minimum seek, 10,000 RPM and 0.1 ms
// SCSI overhead. Computed: 4340 cylinders (9.1 GB at 16 x 256 sectors).
// STAND-IN, not published for this drive: the seek curve is fitted to the
// class of DiskSim's Cheetah 9LP (cheetah9LP.seek): 0.831 ms at 1
// cylinder, 10.627 ms full stroke, mean 5.47 ms and variance 3.9 ms^2 over
// uniformly random cylinder pairs (coefficients found by a grid search over
// boundary and sqrt slope with the curve continuous at the boundary), then
// clamped at the paper's 0.5 ms minimum. Also chosen, not published: the
// skews, 22 sectors per track switch (0.5 ms head switch = 21.3 sectors)
// and 36 per cylinder (0.831 ms one-cylinder seek = 35.5 sectors).
func st19101() *Model {
	return &Model{
		Name:      "st19101",
		Source:    "virtual-log paper Table 1; seek curve a stand-in fitted to DiskSim cheetah9LP (0.831 ms..10.627 ms); skews chosen",
		Cylinders: 4340,
		Surfaces:  16,
		Zones:     []Zone{{FirstCyl: 0, LastCyl: 4339, SectorsPerTrack: 256, TrackSkew: 22, CylSkew: 36}},
		RPM:       10000,
		Seek: SeekCurve{
			Boundary: 444, ShortA: 0.680, ShortB: 0.151, LongA: 3.091, LongB: 0.001737,
			MinMs: 0.5,
		},
		HeadSwitchMs:    0.5,
		WriteOverheadMs: 0.1,
		ReadOverheadMs:  0.1,
	}
}

// hpc2247a is the HP C2247A of the range-writes paper, with DiskSim 2.01's
// validated parameters (hp_c2247a.diskspecs, hp_c2247a.parv): 8 zones with
// their skews, the 10-entry seek table and the two-piece curve beyond it,
// 0.65 ms write settle, 0.89 ms head switch, 0.824 ms write and 0.558 ms
// read-miss controller overhead. No minimum clamp: the table starts at
// 2.89 ms. The cache (2 x 128 KB, read-ahead) is not modelled here.
func hpc2247a() *Model {
	spt := []int{96, 92, 88, 84, 80, 72, 64, 56}
	first := []int{0, 559, 761, 902, 1052, 1194, 1520, 1794}
	tskew := []int{14, 13, 13, 12, 12, 11, 10, 9}
	cskew := []int{32, 30, 29, 28, 27, 24, 22, 19}
	zones := make([]Zone, len(spt))
	for i := range spt {
		last := 2050
		if i+1 < len(first) {
			last = first[i+1] - 1
		}
		zones[i] = Zone{FirstCyl: first[i], LastCyl: last, SectorsPerTrack: spt[i], TrackSkew: tskew[i], CylSkew: cskew[i]}
	}
	return &Model{
		Name:      "hpc2247a",
		Source:    "DiskSim 2.01 hp_c2247a.diskspecs/.parv (range-writes paper's disk)",
		Cylinders: 2051,
		Surfaces:  13,
		Zones:     zones,
		RPM:       5400,
		Seek: SeekCurve{
			Table:    []float64{2.89, 3.68, 3.81, 3.98, 4.27, 4.65, 4.52, 4.65, 4.82, 4.99},
			Boundary: 300, ShortA: 3.81, ShortB: 0.33, LongA: 7.75, LongB: 0.0059,
		},
		HeadSwitchMs:    0.89,
		WriteOverheadMs: 0.824,
		ReadOverheadMs:  0.558,
		WriteSettleMs:   0.65,
	}
}

// carsonSetia is the hypothetical disk of Carson & Setia, "Optimal Write
// Batch Size in Log-Structured File Systems": 815 cylinders, seek
// 1.775 + 0.725*sqrt(d) ms for every distance, rotational latency uniform
// on 0-16 ms (one revolution = 16 ms, so 3750 RPM), 8 KB blocks at 2 MB/s
// (4 ms per block). Chosen to match: 64 sectors per track, so a 16 ms
// track holds exactly four 8 KiB blocks and one takes 4 ms. Not given by
// the paper and chosen here: 16 surfaces (427 MB), no head switch, no
// skew, no controller overhead (its service time is seek + rotation +
// transfer only).
func carsonSetia() *Model {
	return &Model{
		Name:      "carson-setia",
		Source:    "Carson & Setia, Optimal Write Batch Size in LFS (hypothetical disk); surfaces chosen",
		Cylinders: 815,
		Surfaces:  16,
		Zones:     []Zone{{FirstCyl: 0, LastCyl: 814, SectorsPerTrack: 64}},
		RPM:       3750,
		Seek:      SeekCurve{Boundary: 815, ShortA: 1.775, ShortB: 0.725},
	}
}

// st4000nm0023 is the Seagate Constellation ES.3 SAS, 4 TB (ST4000NM0023),
// a 7200 RPM zoned drive. docs/disk-model.md lists each figure's source.
// Published (Constellation ES.3 SAS Product Manual, 100671510, section
// 4.1): 10 heads, 320,800 user tracks per surface, 7200 RPM, sustained
// transfer 83 to 175 MB/s. Computed: the zone table, 16 bands of 20,050
// cylinders whose sectors per track fall linearly from outer to inner band
// in the ratio 83/175, scaled so the disk holds the 7,814,037,168 sectors
// of a 4 TB drive (IDEMA LBA formula) and rounded up to whole 4 KiB
// blocks (a multiple of 8 sectors, so no sector of a track is left out
// of the 4 KiB layout): 7,814,688,000 sectors, 0.008 % more. Derived from the same
// figures: a sequential transfer at 175 MB/s over a 3304-sector track
// spends 1.333 ms per track beyond one revolution, which the skews cover
// (head switch 1.12 ms + write settle 0.21 ms). STAND-IN: the ES.3's own
// seek table could not be read; the seek figures, 0.23 ms single track,
// 7.5 ms average and 17.06 ms full stroke (read, without controller
// overhead), 0.21 ms more for a one-track write, and 0.2 ms controller
// overhead, are those of Seagate's Constellation.2 SAS (7200 RPM; product
// manual Rev. H, section 5.2.1), in line with WD's Ultrastar DC HC310
// 4-6 TB (7.4 ms, 0.23 ms). The curve is continuous at 64,000 cylinders,
// where its slope also nearly matches, and meets the three seek figures.
// The drive's cache is not modelled.
func st4000nm0023() *Model {
	const switchMs = 1.333 // head switch + write settle: what each skew covers
	spt := []int{3304, 3184, 3072, 2960, 2840, 2728, 2608, 2496, 2376, 2264, 2144, 2032, 1912, 1800, 1688, 1568}
	const perZone = 20050
	zones := make([]Zone, len(spt))
	for i, n := range spt {
		skew := int(math.Ceil(switchMs * 7200 / 60000 * float64(n)))
		zones[i] = Zone{FirstCyl: i * perZone, LastCyl: (i+1)*perZone - 1, SectorsPerTrack: n, TrackSkew: skew, CylSkew: skew}
	}
	return &Model{
		Name:      "st4000nm0023",
		Source:    "Constellation ES.3 SAS manual 4.1 (heads, tracks, RPM, 83-175 MB/s); zones, skews computed; seek a stand-in: Constellation.2 SAS manual 5.2.1",
		Cylinders: len(spt) * perZone,
		Surfaces:  10,
		Zones:     zones,
		RPM:       7200,
		Seek: SeekCurve{
			Boundary: 64000, ShortA: 0.2079, ShortB: 0.02207, LongA: 2.983, LongB: 4.388e-5,
		},
		HeadSwitchMs:    1.12,
		WriteOverheadMs: 0.2,
		ReadOverheadMs:  0.2,
		WriteSettleMs:   0.21,
	}
}
