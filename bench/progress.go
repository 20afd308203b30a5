package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/vlfs/vlfs/internal/liveline"
)

// Progress shows how far a long benchmark has got: points done of the
// total, the elapsed wall time and an estimate of the time left. On a
// terminal it redraws one line (carriage return); anywhere else (a log
// file, make's output, a test buffer) it prints a line at most every
// lineEvery, so logs stay short. It writes to stderr in the commands:
// stdout carries the report.
//
// A nil *Progress, or one made with a nil writer, does nothing, so a
// benchmark can call it unconditionally.
type Progress struct {
	w     io.Writer
	label string
	total int
	done  int
	tty   bool
	start time.Time
	last  time.Time
	now   func() time.Time
}

const (
	ttyEvery  = 200 * time.Millisecond // redraw rate on a terminal
	lineEvery = 5 * time.Second        // line rate in logs
)

// NewProgress starts a progress display of total steps labelled label.
// It returns nil (a no-op) when w is nil or total is not positive.
func NewProgress(w io.Writer, label string, total int) *Progress {
	if w == nil || total <= 0 {
		return nil
	}
	return newProgressAt(w, label, total, time.Now)
}

func newProgressAt(w io.Writer, label string, total int, now func() time.Time) *Progress {
	p := &Progress{w: w, label: label, total: total, tty: liveline.IsTerminal(w), now: now}
	p.start = now()
	p.last = p.start
	return p
}

// Step records one step done; what names it (shown on the line).
func (p *Progress) Step(what string) {
	if p == nil {
		return
	}
	p.done++
	t := p.now()
	every := lineEvery
	if p.tty {
		every = ttyEvery
	}
	if p.done < p.total && t.Sub(p.last) < every {
		return
	}
	p.last = t
	p.print(what, t)
}

// Done ends the display (a final newline on a terminal).
func (p *Progress) Done() {
	if p == nil || !p.tty {
		return
	}
	fmt.Fprintln(p.w)
}

func (p *Progress) print(what string, t time.Time) {
	elapsed := t.Sub(p.start)
	left := time.Duration(0)
	if p.done > 0 {
		left = elapsed * time.Duration(p.total-p.done) / time.Duration(p.done)
	}
	line := fmt.Sprintf("%s: %d/%d (%3.0f%%) %s, elapsed %s, left ~%s", p.label, p.done, p.total,
		100*float64(p.done)/float64(p.total), what, elapsed.Round(time.Second), left.Round(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}
