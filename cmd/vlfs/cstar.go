package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/vlfs/vlfs/vld/disk"
)

// cstarResult is `vlfs cstar --json`, fields in print order. Times are ms,
// rates MB/s (1e6 bytes/s), KB are 1024 bytes.
type cstarResult struct {
	Disk        string  `json:"disk,omitempty"`
	BlockSize   int     `json:"block_size"`
	RateMBs     float64 `json:"rate_mb_s"`
	SeekMeanMs  float64 `json:"seek_mean_ms"`
	SeekVarMs2  float64 `json:"seek_var_ms2"`
	RotMeanMs   float64 `json:"rot_mean_ms"`
	RotVarMs2   float64 `json:"rot_var_ms2"`
	DMs         float64 `json:"d_ms"`
	Sigma2Ms2   float64 `json:"sigma2_ms2"`
	KMsPerBlock float64 `json:"k_ms_per_block"`
	CStarBlocks float64 `json:"c_star_blocks"`
	CStarKB     float64 `json:"c_star_kb"`
	BatchBlocks int     `json:"batch_blocks"`
	RealizedMBs float64 `json:"realized_mb_s"`
}

// cstarInputs are the formula's inputs, from --disk and/or explicit flags.
type cstarInputs struct {
	seekMean, seekVar, rotMean, rotVar, rate float64
}

// runCstar is `vlfs cstar`: Carson and Setia's optimal write batch size,
// formula (10), for a disk model or explicit statistics.
func runCstar(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("cstar", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "", "disk preset or model file: seek stats over random cylinder pairs, uniform rotation, outer-zone rate")
	var in cstarInputs
	fl.Float64Var(&in.seekMean, "seek-mean", 0, "mean seek time, ms")
	fl.Float64Var(&in.seekVar, "seek-var", 0, "seek time variance, ms^2")
	fl.Float64Var(&in.rotMean, "rot-mean", 0, "mean rotational latency, ms")
	fl.Float64Var(&in.rotVar, "rot-var", 0, "rotational latency variance, ms^2")
	fl.Float64Var(&in.rate, "rate", 0, "media transfer rate, MB/s (1e6 bytes/s)")
	blockSize := fl.Int("block-size", 4096, "block size, bytes")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs cstar (--disk PRESET|FILE | --seek-mean MS --seek-var MS2 --rot-mean MS --rot-var MS2 --rate MB/S) [--block-size BYTES] [--json]")
		fmt.Fprintln(stderr, "explicit flags override what --disk computes")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	res, err := cstarCompute(*diskName, in, set, *blockSize)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs cstar: %v\n", err)
		return exitUsage
	}
	if *asJSON {
		b, _ := json.MarshalIndent(res, "", "  ") // plain finite fields always marshal
		fmt.Fprintf(stdout, "%s\n", b)
		return exitOK
	}
	printCstar(stdout, res)
	return exitOK
}

// cstarCompute fills the inputs from the disk (if any), lets explicit
// flags override them, checks them and evaluates formula (10).
func cstarCompute(diskName string, in cstarInputs, set map[string]bool, blockSize int) (*cstarResult, error) {
	res := &cstarResult{Disk: diskName, BlockSize: blockSize}
	vals := []struct {
		flag string
		dst  *float64
		v    float64
	}{
		{"seek-mean", &res.SeekMeanMs, in.seekMean}, {"seek-var", &res.SeekVarMs2, in.seekVar},
		{"rot-mean", &res.RotMeanMs, in.rotMean}, {"rot-var", &res.RotVarMs2, in.rotVar},
		{"rate", &res.RateMBs, in.rate},
	}
	if diskName != "" {
		m, err := disk.Resolve(diskName)
		if err != nil {
			return nil, err
		}
		res.SeekMeanMs, res.SeekVarMs2 = disk.SeekStats(m)
		res.RotMeanMs, res.RotVarMs2 = disk.RotationStats(m)
		res.RateMBs = m.MediaRateBytesPerMs() / 1e3
	}
	for _, v := range vals {
		switch {
		case set[v.flag]:
			*v.dst = v.v
		case diskName == "":
			return nil, fmt.Errorf("--%s is required without --disk", v.flag)
		}
		if math.IsNaN(*v.dst) || math.IsInf(*v.dst, 0) || *v.dst < 0 {
			return nil, fmt.Errorf("--%s must be finite and >= 0, got %v", v.flag, *v.dst)
		}
		if v.flag == "rate" && *v.dst == 0 {
			return nil, fmt.Errorf("--rate must be positive, got 0")
		}
	}
	if blockSize <= 0 {
		return nil, fmt.Errorf("--block-size must be positive, got %d", blockSize)
	}
	return cstarFinish(res)
}

// cstarFinish derives D, sigma^2, k, c* and the realized rate.
func cstarFinish(res *cstarResult) (*cstarResult, error) {
	res.DMs = res.SeekMeanMs + res.RotMeanMs
	res.Sigma2Ms2 = res.SeekVarMs2 + res.RotVarMs2
	res.KMsPerBlock = float64(res.BlockSize) / (res.RateMBs * 1e3) // bytes / (bytes per ms)
	c, err := disk.CStar(res.DMs, res.Sigma2Ms2, res.KMsPerBlock)
	if err != nil {
		return nil, fmt.Errorf("%w (from --seek-mean + --rot-mean, --seek-var + --rot-var, --block-size / --rate)", err)
	}
	res.CStarBlocks = c
	res.CStarKB = c * float64(res.BlockSize) / 1024
	res.BatchBlocks = disk.BestBatch(c, res.DMs, res.Sigma2Ms2, res.KMsPerBlock)
	res.RealizedMBs = c * float64(res.BlockSize) / (res.DMs + c*res.KMsPerBlock) / 1e3
	return res, nil
}

func printCstar(w io.Writer, r *cstarResult) {
	name := r.Disk
	if name == "" {
		name = "explicit parameters"
	}
	fmt.Fprintf(w, "c* (Carson & Setia, formula 10) for %s, %d-byte blocks\n", name, r.BlockSize)
	fmt.Fprintf(w, "  D       = mean seek + mean rotation = %.4g + %.4g = %.4f ms\n", r.SeekMeanMs, r.RotMeanMs, r.DMs)
	fmt.Fprintf(w, "  sigma^2 = seek var + rotation var   = %.4g + %.4g = %.4f ms^2\n", r.SeekVarMs2, r.RotVarMs2, r.Sigma2Ms2)
	fmt.Fprintf(w, "  k       = block / rate              = %d B / %.4g MB/s = %.4f ms per block\n", r.BlockSize, r.RateMBs, r.KMsPerBlock)
	fmt.Fprintf(w, "  c*      = sqrt(D^2 + sigma^2) / k   = %.2f blocks = %.1f KB\n", r.CStarBlocks, r.CStarKB)
	fmt.Fprintf(w, "  batch   = %d blocks (the whole size minimizing formula 8)\n", r.BatchBlocks)
	fmt.Fprintf(w, "  realized write rate c*/(D + c* k)  = %.3f MB/s\n", r.RealizedMBs)
}
