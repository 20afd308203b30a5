package diskfs

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/internal/mountinfo"
)

// Server answers the kernel's requests for one mount of one Disk.
type Server struct {
	disk    Disk
	conn    *fuse.Conn
	dir     string
	connID  string // name under /sys/fs/fuse/connections, "" if unknown
	opt     Options
	core    fuseserve.Core // the reader loop and answering
	started time.Time
	mtime   time.Time // of the disk file: start of serving, then last write
	mtimeMu sync.Mutex

	ops     counters
	handles handleTable
	readers sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Mount mounts d on dir (an existing directory) and starts serving it. The
// mount lasts until it is unmounted (Unmount, `vlfs disk umount`,
// fusermount3 -u) or aborted; Wait returns then. The caller closes the disk
// after Wait.
func Mount(dir string, d Disk, o Options) (*Server, error) {
	abs, err := realDir(dir)
	if err != nil {
		return nil, err
	}
	o = withDefaults(o)
	c, err := fuse.Mount(abs, mountOptions(o)...)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", abs, err)
	}
	s := Serve(c, abs, d, o)
	if e, ok, _ := mountinfo.Find(abs); ok {
		s.connID = e.ConnID()
	}
	// An in-process FUSE_POLL can deadlock the process beyond even SIGKILL
	// (package fusepoll): have the kernel stop sending them now.
	s.core.DisablePoll(filepath.Join(abs, StatsFile))
	return s, nil
}

// realDir is dir made absolute with symlinks resolved: the kernel names
// loop backing files by their real path.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("mount point %s: %w", dir, err)
	}
	return abs, nil
}

// Serve starts answering requests on a connection already mounted on dir
// and returns at once.
func Serve(c *fuse.Conn, dir string, d Disk, o Options) *Server {
	o = withDefaults(o)
	now := time.Now()
	s := &Server{disk: d, conn: c, dir: dir, opt: o, started: now, mtime: now}
	s.core = fuseserve.Core{Name: "diskfs", Logf: o.Logf, Debug: o.Debug, Handle: s.dispatch, Errno: errno}
	s.ops.init()
	s.handles.init()
	for range o.Readers {
		s.readers.Add(1)
		go func() {
			defer s.readers.Done()
			s.reader()
		}()
	}
	return s
}

// Dir is the mount point.
func (s *Server) Dir() string { return s.dir }

// DiskPath is the path of the exported disk file.
func (s *Server) DiskPath() string { return filepath.Join(s.dir, DiskFile) }

// Wait blocks until the kernel ends the connection (after an unmount or an
// abort) and every request in flight is answered, then closes the
// connection.
func (s *Server) Wait() error {
	s.readers.Wait()
	s.closeOnce.Do(func() { s.closeErr = s.conn.Close() })
	return s.closeErr
}

// Unmount unmounts the mount point unless the disk file is still in use;
// Wait returns afterwards. See Unmount.
func (s *Server) Unmount() error { return Unmount(s.dir) }

// Abort ends the connection at once through the fuse control file system:
// requests in flight fail, the mount point answers ENOTCONN until it is
// unmounted, and Wait returns. Nothing is synced: this is the unclean stop
// a crash of the server would be.
func (s *Server) Abort() error { return unmounter().Abort(s.dir, s.connID) }

// Report is the content of the stats file.
func (s *Server) Report() Report {
	return Report{
		PID: os.Getpid(), Mount: s.dir, Image: s.opt.Image,
		UptimeS: time.Since(s.started).Seconds(),
		Disk:    s.disk.Stats(), FUSE: s.ops.snapshot(),
	}
}

func (s *Server) touch() {
	s.mtimeMu.Lock()
	s.mtime = time.Now()
	s.mtimeMu.Unlock()
}

func (s *Server) modTime() time.Time {
	s.mtimeMu.Lock()
	defer s.mtimeMu.Unlock()
	return s.mtime
}
