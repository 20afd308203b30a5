package rangedisk

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/disk"
)

// Scheduler selects how range writes are scheduled. Exact requests are
// always scheduled shortest-positioning-time-first.
type Scheduler uint8

const (
	// HRS is hierarchical-range scheduling (section 4.2 of the paper).
	HRS Scheduler = iota
	// ECS is expand-and-cancel scheduling (section 4.1).
	ECS
)

func (s Scheduler) String() string {
	switch s {
	case HRS:
		return "hrs"
	case ECS:
		return "ecs"
	}
	return fmt.Sprintf("scheduler(%d)", uint8(s))
}

// ParseScheduler reads "hrs" or "ecs".
func ParseScheduler(s string) (Scheduler, error) {
	switch s {
	case "hrs":
		return HRS, nil
	case "ecs":
		return ECS, nil
	}
	return 0, fmt.Errorf("%w: unknown scheduler %q (hrs or ecs)", ErrBadRequest, s)
}

// Config sets up a Disk. The zero value is a queue of one under HRS.
type Config struct {
	// QueueDepth is Q, the most requests outstanding at once; 0 means 1.
	QueueDepth int
	Scheduler  Scheduler
	// ECSTargets is k, how many equally spaced single-block targets ECS
	// expands each range write into; 0 expands into every target.
	ECSTargets int
	// Head and StartMs are the arm's position and the clock at the start.
	Head    disk.Head
	StartMs float64
	// KeepData makes the disk keep written data and return it on reads.
	KeepData bool
}

// Stats are a Disk's counters since New.
type Stats struct {
	Decisions int64 // scheduling decisions made
	// Estimates counts service-time estimates (seek and rotational position
	// for one candidate). HRS computes a cheap seek-and-settle bound for
	// every per-track piece first (SeekBounds); the pieces the bound prunes
	// get no estimate (Pruned).
	Estimates  int64
	SeekBounds int64
	Pruned     int64
	Cancelled  int64 // ECS targets dropped when another target of their request was chosen
	Completed  int64
	NoTarget   int64 // range writes completed with ErrNoTarget
	Reads      int64
	Writes     int64 // exact writes
	Ranges     int64 // range writes placed
	Sim        disk.Access
}
