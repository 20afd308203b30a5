package fusefs

import "path/filepath"

// disablePoll makes the kernel stop sending FUSE_POLL on this mount: an
// in-process FUSE_POLL can deadlock with the garbage collector (see package
// fusepoll). It needs a file to open, the stats file.
func (s *Server) disablePoll() {
	if s.opt.StatsFile == statsDisabled {
		return
	}
	s.core.DisablePoll(filepath.Join(s.dir, s.opt.StatsFile))
}
