// Package liveline writes progress to a terminal or a log file: on a
// terminal one line redrawn in place, elsewhere plain lines, one per step
// the caller names, so that a log does not pile up carriage-return frames.
// It owns no state beyond one writer's; it is not safe for concurrent use.
package liveline

import (
	"fmt"
	"io"
	"os"
)

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Line is one progress line on w.
type Line struct {
	w       io.Writer
	tty     bool
	lastKey string
	shown   bool // something was written (the first Show always is)
	open    bool // a line is on the terminal, not yet ended
}

// New returns a Line on w, redrawn in place if w is a terminal.
func New(w io.Writer) *Line { return &Line{w: w, tty: IsTerminal(w)} }

// Show displays line. On a terminal it replaces what is shown; elsewhere
// it is written as a line of its own only when key differs from the last
// shown key (the caller's coarse step: a percentage, a bar's length), so a
// log gets one line per step, not one per update.
func (l *Line) Show(line, key string) {
	if l.tty {
		fmt.Fprintf(l.w, "\r\033[K%s", line)
		l.open = true
		return
	}
	if l.shown && key == l.lastKey {
		return
	}
	l.shown, l.lastKey = true, key
	fmt.Fprintln(l.w, line)
}

// End finishes the display: the terminal's line is ended.
func (l *Line) End() {
	if l.tty && l.open {
		fmt.Fprintln(l.w)
		l.open = false
	}
}
