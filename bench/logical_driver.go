package bench

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// latency is the wall-clock time of one synchronous write (the write plus
// its sync), in ms: the mean, and the median, which a busy machine's
// stalls do not move.
type latency struct{ meanMs, medianMs float64 }

// syncWrites performs n synchronous 4 KiB writes at random aligned offsets
// of the file at path (size bytes) and returns their latency.
func syncWrites(driver, sync, path string, size int64, n int, seed int64) (latency, error) {
	if driver == "fio" {
		return fioWrites(sync, path, size, n, seed)
	}
	return goWrites(sync, path, size, n, seed)
}

// fioStat is one latency block of fio's JSON report.
type fioStat struct {
	Mean       float64            `json:"mean"`
	Percentile map[string]float64 `json:"percentile"`
}

// fioWrites runs fio with fsync=1 (or fdatasync=1) and reads the write and
// sync latencies from its JSON report (the median of each, summed, stands
// for the median write).
func fioWrites(sync, path string, size int64, n int, seed int64) (latency, error) {
	out, err := exec.Command("fio", "--name=logical", "--filename="+path, "--rw=randwrite", "--bs=4k",
		"--size="+strconv.FormatInt(size, 10), "--number_ios="+strconv.Itoa(n), "--"+sync+"=1",
		"--ioengine=psync", "--norandommap", "--randrepeat=0", "--randseed="+strconv.FormatInt(seed, 10),
		"--output-format=json").Output()
	if err != nil {
		return latency{}, fmt.Errorf("fio: %w", err)
	}
	var rep struct {
		Jobs []struct {
			Error int `json:"error"`
			Write struct {
				TotalIOs int64   `json:"total_ios"`
				Lat      fioStat `json:"lat_ns"`
				Clat     fioStat `json:"clat_ns"`
			} `json:"write"`
			Sync struct {
				Lat fioStat `json:"lat_ns"`
			} `json:"sync"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return latency{}, fmt.Errorf("fio output: %w", err)
	}
	if len(rep.Jobs) != 1 || rep.Jobs[0].Error != 0 || rep.Jobs[0].Write.TotalIOs != int64(n) {
		return latency{}, fmt.Errorf("fio: unexpected report (%d jobs, want 1 job with %d writes): %s", len(rep.Jobs), n, out)
	}
	j := rep.Jobs[0]
	const p50 = "50.000000"
	return latency{meanMs: (j.Write.Lat.Mean + j.Sync.Lat.Mean) / 1e6,
		medianMs: (j.Write.Clat.Percentile[p50] + j.Sync.Lat.Percentile[p50]) / 1e6}, nil
}

// goWrites is the same workload without fio: pwrite then fsync (or
// fdatasync), n times.
func goWrites(sync, path string, size int64, n int, seed int64) (latency, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return latency{}, err
	}
	defer f.Close()
	rng := rand.New(rand.NewSource(seed))
	buf := make([]byte, 4096)
	blocks := size / 4096
	lat := make([]float64, n)
	for i := range lat {
		rng.Read(buf)
		start := time.Now()
		if _, err := f.WriteAt(buf, rng.Int63n(blocks)*4096); err != nil {
			return latency{}, err
		}
		if sync == "fdatasync" {
			err = unix.Fdatasync(int(f.Fd()))
		} else {
			err = f.Sync()
		}
		if err != nil {
			return latency{}, fmt.Errorf("%s: %w", sync, err)
		}
		lat[i] = float64(time.Since(start)) / float64(time.Millisecond)
	}
	return summarize(lat), nil
}

func summarize(ms []float64) latency {
	sum := 0.0
	for _, v := range ms {
		sum += v
	}
	sort.Float64s(ms)
	return latency{meanMs: sum / float64(len(ms)), medianMs: ms[len(ms)/2]}
}

// fillFile writes size bytes of random data to a new file and fsyncs it.
func fillFile(path string, size int64, seed int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	rng := rand.New(rand.NewSource(seed))
	buf := make([]byte, 1<<20)
	for done := int64(0); done < size; {
		rng.Read(buf)
		n := min(int64(len(buf)), size-done)
		if _, err := f.Write(buf[:n]); err != nil {
			return fmt.Errorf("filling %s to %d bytes: %w", path, size, err)
		}
		done += n
	}
	return f.Sync()
}
