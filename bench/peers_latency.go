package bench

import (
	"sync"
	"time"
)

// latencies collects operation latencies from many goroutines.
type latencies struct {
	mu sync.Mutex
	ms []float64
}

// add records one operation that started at start.
func (l *latencies) add(start time.Time) {
	d := float64(time.Since(start)) / float64(time.Millisecond)
	l.mu.Lock()
	l.ms = append(l.ms, d)
	l.mu.Unlock()
}

// count is the number of operations recorded.
func (l *latencies) count() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.ms))
}

// percentiles returns the 50th and 99th percentiles in ms (nearest rank);
// zeros when nothing was recorded.
func (l *latencies) percentiles() (p50, p99 float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ms) == 0 {
		return 0, 0
	}
	return percentile(l.ms, 0.50), percentile(l.ms, 0.99)
}

// result makes a peerResult from the recorded latencies.
func (l *latencies) result(workload string, bytes int64, elapsed time.Duration) peerResult {
	p50, p99 := l.percentiles()
	return peerResult{workload: workload, ops: l.count(), bytes: bytes, elapsed: elapsed, p50: p50, p99: p99}
}
