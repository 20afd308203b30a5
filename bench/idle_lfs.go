package bench

import (
	"fmt"
	"math/rand"
	"slices"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// The classic-LFS baseline of Figure 10: the same bursts and idle
// intervals on a logical disk on PlaceLFS behind the 6.1 MB NVRAM buffer
// (updates_lfs.go). An update costs no simulated time unless it finds the
// buffer full and waits for the flush (cleaning as needed). Idle time goes
// to work in steps that cannot be interrupted: first the buffer is
// flushed a segment's worth at a time, then segments are cleaned (vld's
// CleanIdle). A step starts only if the idle time predicted (the length of
// the previous idle interval, as the compactor predicts) leaves room for
// it; one that still runs past the interval delays the next burst, and that
// wait counts in its latency.

// lfsIdle is the idle-time worker of the LFS baseline.
type lfsIdle struct {
	d        *logical.Disk
	buf      *nvram
	predict  float64 // the previous idle interval, ms; 0 before one
	flushMs  float64 // the last flush step's duration
	cleanMs  float64 // the last cleaned segment's duration
	segBlock int
}

// think hands ms of idle time to the worker; it returns how far the last
// step ran past it.
func (w *lfsIdle) think(ms float64) (float64, error) {
	v := w.d.Volume()
	start := v.NowMs()
	deadline := start + ms
	room := func(est float64) bool { return v.NowMs()+est <= start+w.predict }
	for len(w.buf.dirty) > 0 && ms > 0 && room(w.flushMs) {
		t0 := v.NowMs()
		if err := w.buf.flushSome(w.segBlock); err != nil {
			return 0, err
		}
		w.flushMs = v.NowMs() - t0
	}
	for ms > 0 && len(w.buf.dirty) == 0 && room(w.cleanMs) {
		t0 := v.NowMs()
		c0 := w.d.CleanerStats().SegmentsCleaned
		// A zero-length grant: CleanIdle cleans at most one segment
		// (it checks the deadline before each).
		if _, err := w.d.CleanIdle(1e-9); err != nil {
			return 0, err
		}
		if w.d.CleanerStats().SegmentsCleaned == c0 {
			break // nothing worth cleaning
		}
		w.cleanMs = v.NowMs() - t0
	}
	w.predict = ms
	now := v.NowMs()
	if now < deadline {
		v.Idle(deadline - now)
		return 0, nil
	}
	return now - deadline, nil
}

// flushSome writes up to n of the buffer's dirty blocks (lowest logical
// addresses first) and syncs.
func (n *nvram) flushSome(k int) error {
	if len(n.dirty) <= k {
		return n.flush()
	}
	ls := make([]int64, 0, len(n.dirty))
	for l := range n.dirty {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	ls = ls[:k]
	data := make([][]byte, k)
	for i := range data {
		data[i] = n.block
	}
	if err := n.d.WriteScattered(ls, data); err != nil {
		return fmt.Errorf("flushing the NVRAM buffer: %w", err)
	}
	for _, l := range ls {
		delete(n.dirty, l)
	}
	return n.d.Sync()
}

// openLFS formats an LFS logical disk (img == nil) or opens a copy of img.
func openLFS(cfg IdleConfig, m *disk.Model, img []byte) (*logical.Disk, *device.Mem, error) {
	var dev *device.Mem
	if img == nil {
		dev = device.NewMem(cfg.DiskBytes)
		if err := logical.FormatPlaced(dev, vld.FormatOptions{Model: m}, vld.PlaceLFS); err != nil {
			return nil, nil, err
		}
	} else {
		dev = device.MemFrom(img)
	}
	d, err := logical.Open(dev, vld.Options{Head: cfg.Head})
	if err != nil {
		return nil, nil, err
	}
	d.SetCleaner(logical.CleanerConfig{Policy: cfg.CleanPolicy})
	return d, dev, nil
}

// lfsImage is the LFS starting state: the file written, then updated at
// random through the buffer until the log has written as much as the free
// space (the cleaner in its steady state), flushed and closed.
func lfsImage(cfg IdleConfig, m *disk.Model) ([]byte, error) {
	d, dev, err := openLFS(cfg, m, nil)
	if err != nil {
		return nil, err
	}
	n := fileBlocks(d, cfg.Utilization)
	if err := writeFile(d, n); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(cfg.Seed + 1))
	buf := newNVRAM(d)
	free := d.Volume().FreeBlocks()
	for d.CleanerStats().ClientBlocks < n+free {
		if _, err := buf.update(rng.Int63n(n)); err != nil {
			return nil, fmt.Errorf("ageing the log: %w", err)
		}
	}
	if err := buf.flush(); err != nil {
		return nil, err
	}
	if err := d.Close(); err != nil {
		return nil, err
	}
	return dev.Bytes(), nil
}

// idleLFSRows runs every burst size and idle interval on the LFS baseline.
// vs_empty is against the eager empty-disk row of the same burst size.
func idleLFSRows(cfg IdleConfig, m *disk.Model, empty map[int]float64) ([]map[string]any, error) {
	img, err := lfsImage(cfg, m)
	if err != nil {
		return nil, err
	}
	var rows []map[string]any
	for _, b := range cfg.BurstKB {
		for _, idle := range cfg.IdleMs {
			row, err := idleLFSPoint(cfg, m, img, b, idle)
			if err != nil {
				return nil, err
			}
			if e := empty[b]; e > 0 {
				row["vs_empty"] = row["mean_ms"].(float64) / e
			}
			rows = append(rows, row)
			cfg.progress.Step(fmt.Sprintf("%s lfs %d KiB bursts, idle %g ms", m.Name, b, idle))
		}
	}
	return rows, nil
}

// idleLFSPoint runs warm-up and measured bursts, as runBursts does.
func idleLFSPoint(cfg IdleConfig, m *disk.Model, img []byte, burstKB int, idleMs float64) (map[string]any, error) {
	d, _, err := openLFS(cfg, m, img)
	if err != nil {
		return nil, err
	}
	defer d.Volume().Close()
	v := d.Volume()
	file := fileBlocks(d, cfg.Utilization)
	w := &lfsIdle{d: d, buf: newNVRAM(d), segBlock: lfsSegmentBytes / d.BlockSize()}
	per := burstKB / 4
	// The buffer holds several bursts: run enough of them that the
	// measurement spans several fills of it.
	bursts := max((cfg.Updates+per-1)/per, 4, 2*w.buf.cap/per)
	rng := rand.New(rand.NewSource(cfg.Seed))
	var lat, waitSum, waitMax float64
	var n, cycles int
	var c0 logical.CleanerStats
	arrive := v.NowMs()
	for i := 0; i < 2*bursts; i++ {
		measured := i >= bursts
		if i == bursts {
			c0 = d.CleanerStats()
		}
		for j := 0; j < per; j++ {
			if _, err := w.buf.update(rng.Int63n(file)); err != nil {
				return nil, fmt.Errorf("burst %d update %d: %w", i, j, err)
			}
		}
		if measured {
			lat += v.NowMs() - arrive
			n += per
			cycles++
		}
		wait, err := w.think(idleMs)
		if err != nil {
			return nil, err
		}
		if measured {
			waitSum += wait
			waitMax = max(waitMax, wait)
		}
		arrive = v.NowMs() - wait
	}
	c1 := d.CleanerStats()
	return map[string]any{
		"disk": m.Name, "system": "logical-disk", "placement": vld.PlaceLFS.String(), "compactor": "on", "head_model": v.HeadModel(),
		"burst_kb": burstKB, "idle_ms": idleMs, "utilization": cfg.Utilization,
		"mean_ms":      lat / float64(n),
		"wait_mean_ms": waitSum / float64(cycles), "wait_max_ms": waitMax,
		"cleaned_per_burst": float64(c1.SegmentsCleaned-c0.SegmentsCleaned) / float64(cycles),
		"moved_per_burst":   float64(c1.BlocksMoved-c0.BlocksMoved) / float64(cycles),
	}, nil
}
