package bench

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// fioJobFiles are the job files of bench/fio, shipped inside the binary so
// that `vlfs bench peers` runs from anywhere. They take their sizes from
// the environment (PEERS_DIR, PEERS_SIZE, PEERS_IOS, PEERS_RUNTIME).
//
//go:embed fio/*.fio
var fioJobFiles embed.FS

// fioJob is one run of a job file.
type fioJob struct {
	file     string // in bench/fio
	workload string // row name
	size     int64
	ios      int  // 0: the whole size
	cold     bool // drop the backing caches first
}

// runFioJobs runs the fio jobs in order: the synchronous small writes, then
// the sequential write, read and random read of one file.
func runFioJobs(cfg PeersConfig, t peerTarget, dir string) ([]peerResult, error) {
	s := cfg.Sizes
	jobs := []fioJob{
		{"randwrite-fsync.fio", "fio-randwrite-fsync", s.SyncFileSize, s.SyncIOs, false},
		{"append-fsync.fio", "fio-append-fsync", int64(s.SyncIOs) * 4096, 0, false},
		{"append-fdatasync.fio", "fio-append-fdatasync", int64(s.SyncIOs) * 4096, 0, false},
		{"seqwrite.fio", "fio-seqwrite", s.SeqBytes, 0, false},
		{"seqread.fio", "fio-seqread", s.SeqBytes, 0, true},
		{"randread.fio", "fio-randread", s.SeqBytes, s.RandReadIOs, true},
	}
	// Lay the random-write file out here, untimed, rather than by fio's
	// overwrite=1 (which writes it 4 KiB at a time inside the measured run).
	if err := fillFile(filepath.Join(dir, "randwrite.dat"), s.SyncFileSize, 1); err != nil {
		return nil, fmt.Errorf("laying out randwrite.dat: %w", err)
	}
	var out []peerResult
	for _, j := range jobs {
		if j.cold {
			if err := t.dropCaches(); err != nil {
				return nil, fmt.Errorf("dropping caches: %w", err)
			}
		}
		cfg.Logf("peers: %s: %s", t.name(), j.workload)
		r, err := measured(t, func() (peerResult, error) { return runFio(cfg, j, dir) })
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// runFio runs one job file and reads its JSON report.
func runFio(cfg PeersConfig, j fioJob, dir string) (peerResult, error) {
	job, err := fioJobFiles.ReadFile("fio/" + j.file)
	if err != nil {
		return peerResult{}, err
	}
	jobPath := filepath.Join(cfg.WorkDir, "vlfs-peers-"+j.file)
	if err := os.WriteFile(jobPath, job, 0o644); err != nil {
		return peerResult{}, err
	}
	defer os.Remove(jobPath)
	cmd := ownSession(exec.Command("fio", "--output-format=json", jobPath))
	ios := j.ios
	if ios == 0 {
		ios = int(j.size / 4096)
	}
	cmd.Env = append(os.Environ(), "PEERS_DIR="+dir, "PEERS_SIZE="+strconv.FormatInt(j.size, 10),
		"PEERS_IOS="+strconv.Itoa(ios), "PEERS_RUNTIME="+strconv.Itoa(int(cfg.Sizes.FioRuntime.Seconds())))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return peerResult{}, fmt.Errorf("fio %s: %v: %s", j.file, err, strings.TrimSpace(stderr.String()))
	}
	return parseFio(out, j.workload)
}

// fioLat is one latency block of fio's JSON report (nanoseconds).
type fioLat struct {
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

// fioDir is the read or write part of a fio job report.
type fioDir struct {
	TotalIOs int64   `json:"total_ios"`
	IOBytes  int64   `json:"io_bytes"`
	RuntimeM int64   `json:"runtime"` // ms
	Clat     fioLat  `json:"clat_ns"`
	IOPS     float64 `json:"iops"`
}

// fioReport is the part of fio's --output-format=json that we read.
type fioReport struct {
	Jobs []struct {
		Name  string `json:"jobname"`
		Error int    `json:"error"`
		Read  fioDir `json:"read"`
		Write fioDir `json:"write"`
		Sync  struct {
			TotalIOs int64  `json:"total_ios"`
			Lat      fioLat `json:"lat_ns"`
		} `json:"sync"`
		JobRuntime int64 `json:"job_runtime"` // ms
	} `json:"jobs"`
}

// Percentile keys of fio's default percentile list.
const (
	fioP50 = "50.000000"
	fioP99 = "99.000000"
)

// parseFio turns fio's JSON report of one job into a result. Operations
// are the reads or writes; for jobs with fsync=1 or fdatasync=1, an
// operation's latency is the write's completion latency plus the sync's,
// and p50/p99 are the sums of the two distributions' percentiles (fio
// reports them separately).
func parseFio(raw []byte, workload string) (peerResult, error) {
	// fio may print warnings before the JSON object.
	if i := strings.IndexByte(string(raw), '{'); i > 0 {
		raw = raw[i:]
	}
	var rep fioReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return peerResult{}, fmt.Errorf("fio output: %w", err)
	}
	if len(rep.Jobs) != 1 || rep.Jobs[0].Error != 0 {
		return peerResult{}, fmt.Errorf("fio: want one job without error, got %d jobs: %.300s", len(rep.Jobs), raw)
	}
	j := rep.Jobs[0]
	d := j.Write
	if j.Read.TotalIOs > 0 {
		d = j.Read
	}
	if d.TotalIOs == 0 || d.RuntimeM <= 0 {
		return peerResult{}, fmt.Errorf("fio %s: no I/O measured: %.300s", j.Name, raw)
	}
	p50, p99 := d.Clat.Percentile[fioP50], d.Clat.Percentile[fioP99]
	// fio counts fsyncs in sync.total_ios but fdatasyncs only in
	// sync.lat_ns.N (fio 3.x): test both.
	if j.Sync.TotalIOs > 0 || j.Sync.Lat.N > 0 {
		p50 += j.Sync.Lat.Percentile[fioP50]
		p99 += j.Sync.Lat.Percentile[fioP99]
	}
	return peerResult{
		workload: workload, ops: d.TotalIOs, bytes: d.IOBytes,
		elapsed: time.Duration(d.RuntimeM) * time.Millisecond,
		p50:     p50 / 1e6, p99: p99 / 1e6,
	}, nil
}
