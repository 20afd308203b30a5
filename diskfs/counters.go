package diskfs

import (
	"sync"
	"time"
)

// OpCount is how often one kind of FUSE request was answered and how long
// answering took (wall clock, inside the server).
type OpCount struct {
	Count  int64   `json:"count"`
	Errors int64   `json:"errors"`
	WallMs float64 `json:"wall_ms"` // total
}

// counters counts requests by kind.
type counters struct {
	mu sync.Mutex
	m  map[string]*OpCount
}

func (c *counters) init() { c.m = make(map[string]*OpCount) }

func (c *counters) add(op string, failed bool, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	oc := c.m[op]
	if oc == nil {
		oc = &OpCount{}
		c.m[op] = oc
	}
	oc.Count++
	if failed {
		oc.Errors++
	}
	oc.WallMs += float64(d) / float64(time.Millisecond)
}

func (c *counters) snapshot() map[string]OpCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]OpCount, len(c.m))
	for k, v := range c.m {
		out[k] = *v
	}
	return out
}
