package vld

import (
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// mech is the simulated disk mechanism: where the head is and what time it
// is. On the virtual clock time only moves when a request is serviced (or
// Idle is called); on the real-time clock it also follows the wall clock and
// every request sleeps its service time.
type mech struct {
	l     *disk.Layout
	clock Clock
	head  disk.Head
	now   float64 // simulated ms
	start time.Time
	sleep func(time.Duration)
	last  lastIO // where and when the last request ended (head_profile.go)
	// deferSleep: on the real-time clock, service does not sleep; the
	// caller waits for the disk without the volume's lock (waitLocked).
	deferSleep bool
}

func newMech(l *disk.Layout, c Clock) *mech {
	return &mech{l: l, clock: c, start: time.Now(), sleep: time.Sleep}
}

// setNow sets simulated time (a clean image's clock, restored at open).
// On the real-time clock the wall clock now stands for ms: simulated time
// restored from an image is not time the disk still owes.
func (m *mech) setNow(ms float64) {
	m.now = ms
	m.start = time.Now().Add(-time.Duration(ms * float64(time.Millisecond)))
}

// syncWall brings simulated time up to the wall clock in real-time mode:
// idle wall time is idle disk time.
func (m *mech) syncWall() {
	if m.clock != ClockReal {
		return
	}
	if w := float64(time.Since(m.start)) / float64(time.Millisecond); w > m.now {
		m.now = w
	}
}

// service charges one request of n contiguous blocks at block b and moves
// the head; tail > 0 transfers only that many sectors of the last block.
// It returns the breakdown of its simulated service time.
func (m *mech) service(b int64, n, tail int, write bool) Breakdown {
	m.syncWall()
	acc, h := m.l.ServiceTail(m.head, m.now, b, n, tail, write)
	m.head = h
	bd := Breakdown{
		OverheadMs: acc.OverheadMs,
		TransferMs: acc.TransferMs,
		LocateMs:   acc.SeekMs + acc.HeadSwitchMs + acc.RotationMs,
	}
	m.now += bd.Total()
	m.last.note(b, n, m.now)
	if !m.deferSleep {
		// Until the request ends on the wall clock: a disk still busy
		// with a unit whose caller sleeps it off finishes that first.
		if d := m.wallUntil(m.now); d > 0 {
			m.sleep(d)
		}
	}
	return bd
}

// wallUntil is how long, on the real-time clock, until the wall-clock
// moment of simulated time ms (0 on the virtual clock or once past).
func (m *mech) wallUntil(ms float64) time.Duration {
	if m.clock != ClockReal {
		return 0
	}
	return m.start.Add(time.Duration(ms * float64(time.Millisecond))).Sub(time.Now())
}

// overheadMs is the controller overhead that precedes positioning.
func (m *mech) overheadMs(write bool) float64 {
	if write {
		return m.l.Model().WriteOverheadMs
	}
	return m.l.Model().ReadOverheadMs
}

// idle lets simulated time pass with the disk doing nothing.
// On the real-time clock idle time is wall time that passes by itself
// (syncWall counts it): advancing the clock here as well put it ahead of
// the wall, and the next request slept the idle time again.
func (m *mech) idle(ms float64) {
	if ms > 0 && m.clock != ClockReal {
		m.now += ms
	}
}

func (m *mech) headTrack() int { return m.l.TrackOfCylSurf(m.head.Cyl, m.head.Surf) }
