package profile

// Format and Version identify a profile file. Wire constants: never change
// them; a change to the format gets a new Version and a decoder for both.
const (
	Format  = "vlfs-profile"
	Version = 1
)

// Limits the decoder enforces, so that a hostile file cannot make a
// consumer build huge tables. Bark's own grid (80 ms in 50 us steps, 600 KB
// in 512 B steps) is 1601 x 1201; MaxCells leaves room for it.
const (
	MaxSkips      = 4096
	MaxThinks     = 4096
	MaxCells      = 1 << 21
	MaxFileBytes  = 256 << 20
	MaxCellMs     = 1e6 // a single write slower than 1000 s is not a measurement
	MaxBlockBytes = 1 << 20
	MaxThinkMs    = 1e5
)

// Target kinds (Meta.Kind).
const (
	KindSim      = "sim"
	KindFile     = "file"
	KindBlockDev = "blockdev"
)

// Clocks a profile is measured on (Meta.Clock).
const (
	ClockSimulated = "simulated"
	ClockWall      = "wall"
)

// Profile is a measured skip x think-time table. Its JSON form:
//
//	{"format": "vlfs-profile", "version": 1,
//	 "meta": {"target": ..., "kind": ..., "block_bytes": ..., "date": ..., ...},
//	 "grid": {"skip_step_bytes": S, "skips": NS, "think_step_ms": T, "thinks": NT},
//	 "median_ms": [[NS values] x NT], "spread_ms": [...], "mean_ms": [...]}
//
// Cell [i][j] is the time of a write issued i*T ms after the previous
// write completed, j*S bytes past the previous write's end (j = 0 is the
// next block in address order), in ms on Meta.Clock: the median, the
// spread (interquartile range) and the mean over Meta.Repetitions.
type Profile struct {
	Format   string      `json:"format"`
	Version  int         `json:"version"`
	Meta     Meta        `json:"meta"`
	Grid     Grid        `json:"grid"`
	MedianMs [][]float64 `json:"median_ms"`
	SpreadMs [][]float64 `json:"spread_ms"`
	MeanMs   [][]float64 `json:"mean_ms"`
}

// Meta says what was measured, how and when.
type Meta struct {
	Target            string `json:"target"` // as given: a path or sim:PRESET
	Kind              string `json:"kind"`   // KindSim, KindFile or KindBlockDev
	BlockBytes        int    `json:"block_bytes"`
	Date              string `json:"date"` // RFC 3339, UTC
	Tool              string `json:"tool"`
	ToolVersion       string `json:"tool_version"`
	Clock             string `json:"clock"` // ClockSimulated or ClockWall
	RegionOffsetBytes int64  `json:"region_offset_bytes"`
	RegionBytes       int64  `json:"region_bytes"`
	Repetitions       int    `json:"repetitions"`
	Seed              int64  `json:"seed"`
	Dsync             bool   `json:"dsync"`  // writes were O_DSYNC
	Direct            bool   `json:"direct"` // writes were O_DIRECT
}

// Grid is the set of (think, skip) points: think i*ThinkStepMs for i in
// [0, Thinks), skip j*SkipStepBytes for j in [0, Skips).
type Grid struct {
	SkipStepBytes int64   `json:"skip_step_bytes"`
	Skips         int     `json:"skips"`
	ThinkStepMs   float64 `json:"think_step_ms"`
	Thinks        int     `json:"thinks"`
}

// MaxSkipBytes is the largest skip measured.
func (g Grid) MaxSkipBytes() int64 { return g.SkipBytes(g.Skips - 1) }

// MaxThinkMs is the longest think time measured.
func (g Grid) MaxThinkMs() float64 { return float64(g.Thinks-1) * g.ThinkStepMs }

// SkipBytes is the skip of column j.
func (g Grid) SkipBytes(j int) int64 { return int64(j) * g.SkipStepBytes }

// ThinkMs is the think time of row i.
func (g Grid) ThinkMs(i int) float64 { return float64(i) * g.ThinkStepMs }

// Cells is the number of grid points.
func (g Grid) Cells() int { return g.Skips * g.Thinks }
