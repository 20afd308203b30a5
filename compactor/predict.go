package compactor

// predictor estimates how long the current idle interval will last, and
// how long the next step will take, from exponentially weighted averages
// of what was seen (the approach of Golding et al., "Idleness is not
// sloth", 1995). It never looks ahead: an interval's length is recorded
// only once the foreground has ended it.
type predictor struct {
	idle, read, move, settle ewma
}

// stepKind is what the next step does, for its predicted length.
type stepKind uint8

const (
	stepMove   stepKind = iota
	stepRead            // reads a source track's live blocks
	stepSettle          // a move that commits the moves before it (Config.SettleBlocks)
)

// ewma is an exponentially weighted moving average; weight 1/4 on the
// newest sample.
type ewma struct {
	n    int
	mean float64
}

func (e *ewma) add(x float64) {
	if e.n == 0 {
		e.mean = x
	} else {
		e.mean += (x - e.mean) / 4
	}
	e.n++
}

// fits reports whether a step of the kind that comes next (a read of a
// source track, or a move) is expected to end before the idle interval
// that began elapsedMs ago does. With no history it answers yes: the
// first intervals are how the history is learnt.
func (p *predictor) fits(elapsedMs float64, kind stepKind) bool {
	step := p.move
	switch kind {
	case stepRead:
		step = p.read
	case stepSettle:
		step = p.settle
	}
	if p.idle.n == 0 || step.n == 0 {
		return true
	}
	return elapsedMs+step.mean <= p.idle.mean
}
