package crashtest

import (
	"fmt"
	"sync"
	"time"
)

// Result is the summary of a run, as `vlfs crashtest --json` prints it.
type Result struct {
	Workloads   int     `json:"workloads"`
	CrashStates int     `json:"crash_states"`
	Failures    int     `json:"failures"` // failing crash states
	Seconds     float64 `json:"seconds"`
	// BlocksMoved counts the blocks that compact ops moved (0 for
	// workloads without them).
	BlocksMoved int64 `json:"blocks_moved"`
	// RecordCommits counts the commits the recorded ops made as log
	// records (file-system version 3), over all workloads and modes.
	RecordCommits int64 `json:"record_commits"`
	// IdleCompactions counts recordings (a workload in one mode) whose
	// compact ops moved nothing, and so tested no compaction.
	IdleCompactions int       `json:"idle_compactions"`
	Errors          []string  `json:"errors,omitempty"` // workloads that could not run
	Reports         []*Report `json:"-"`                // the first failing workloads, shrunk
}

// Report is one failing workload: its failures, the shrunk reproduction
// and the replay command.
type Report struct {
	Failures []Failure
	Shrunk   *Failure // the minimal reproduction (nil if not shrunk)
	Saved    string   // file the reproduction was saved in, if any
	Replay   string   // one-line command replaying it
}

// Run checks every workload with cfg.Jobs workers. Workload order and
// results do not depend on the number of workers.
func Run(ws []Workload, cfg Config) Result {
	cfg = cfg.withDefaults()
	start := time.Now()
	type out struct {
		i   int
		res WorkloadResult
		err error
	}
	jobs, outs := make(chan int), make(chan out)
	var wg sync.WaitGroup
	for range cfg.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, err := CheckWorkload(ws[i], cfg)
				outs <- out{i, r, err}
			}
		}()
	}
	go func() {
		for i := range ws {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		close(outs)
	}()
	results := make([]WorkloadResult, len(ws))
	errs := make([]error, len(ws))
	p := progress{w: cfg.Progress, total: len(ws), start: start}
	for o := range outs {
		results[o.i], errs[o.i] = o.res, o.err
		p.done(o.res.Failing)
	}
	res := Result{Workloads: len(ws)}
	for i, r := range results {
		res.CrashStates += r.States
		res.Failures += r.Failing
		res.BlocksMoved += r.Moved
		res.RecordCommits += r.RecordCommits
		res.IdleCompactions += r.IdleModes
		if errs[i] != nil {
			res.Errors = append(res.Errors, errs[i].Error())
		}
		if len(r.Failures) > 0 && len(res.Reports) < cfg.MaxFailures {
			res.Reports = append(res.Reports, report(r.Failures, cfg))
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

// progress prints a status line at most every two seconds.
type progress struct {
	w          interface{ Write([]byte) (int, error) }
	total, n   int
	fails      int
	start      time.Time
	lastReport time.Time
}

func (p *progress) done(fails int) {
	p.n++
	p.fails += fails
	if p.w == nil || (time.Since(p.lastReport) < 2*time.Second && p.n < p.total) {
		return
	}
	p.lastReport = time.Now()
	fmt.Fprintf(p.w, "crashtest: %d/%d workloads, %d failing states, %.0fs\n", p.n, p.total, p.fails, time.Since(p.start).Seconds())
}
