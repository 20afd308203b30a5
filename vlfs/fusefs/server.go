package fusefs

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/internal/mountinfo"
	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vlfs"
)

// Server answers the kernel's requests for one mount of one vlfs.FS.
type Server struct {
	fs     *vlfs.FS
	conn   *fuse.Conn
	dir    string
	connID string // name under /sys/fs/fuse/connections, "" if unknown
	// readaheadKB is the mount's read-ahead window (bdi.go), 0 if unknown;
	// readaheadErr says why it could not be widened.
	readaheadKB  int
	readaheadErr error
	opt          Options
	core         fuseserve.Core // the reader loop and answering
	started      time.Time

	ops     counters
	pool    pool
	clients clients
	handles handleTable
	stamps  stampTable
	writers writerTable
	refresh blockRefresher
	ra      imageReadahead
	bufs    sync.Pool // *[]byte read buffers

	closeOnce sync.Once
	closeErr  error
}

// Mount mounts fsys on dir (an existing directory) and starts serving it.
// The mount lasts until it is unmounted (Unmount, `vlfs umount`,
// fusermount3 -u) or aborted; Wait returns then. The caller closes fsys
// after Wait.
func Mount(dir string, fsys *vlfs.FS, o Options) (*Server, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", dir, err)
	}
	o = o.withDefaults()
	c, err := fuse.Mount(abs, o.mountOptions()...)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", abs, err)
	}
	// What Mount learns of the mount is set before the readers start, so
	// that no request (the stats file reports it) races with it. Reading
	// the mount table and /sys touches nothing of the mount itself.
	s := newServer(c, abs, fsys, o)
	switch e, ok, err := mountinfo.Find(abs); {
	case err != nil:
		s.readaheadErr = err
	case !ok:
		s.readaheadErr = fmt.Errorf("%s not found in %s", abs, mountinfo.Path)
	case !strings.HasPrefix(e.FSType, "fuse"):
		s.connID = e.ConnID()
		// Never widen another device's window on a surprise entry.
		s.readaheadErr = fmt.Errorf("%s is %s in %s, not a FUSE mount", abs, e.FSType, mountinfo.Path)
	default:
		s.connID = e.ConnID()
		// An error leaves the kernel's window: more READs, nothing else.
		bdi := e.Dev
		if strings.HasPrefix(e.FSType, "fuseblk") {
			bdi += "-fuseblk" // the kernel's name for a fuseblk mount's bdi
		}
		s.readaheadKB, s.readaheadErr = raiseReadahead(BDIDir, bdi, o.MaxReadahead>>10)
	}
	s.start()
	s.disablePoll()
	return s, nil
}

// Serve starts answering requests on a connection that is already mounted
// on dir, in o.Readers goroutines, and returns at once.
func Serve(c *fuse.Conn, dir string, fsys *vlfs.FS, o Options) *Server {
	s := newServer(c, dir, fsys, o)
	s.start()
	return s
}

func newServer(c *fuse.Conn, dir string, fsys *vlfs.FS, o Options) *Server {
	o = o.withDefaults()
	// With the writeback cache the kernel owns a file's times across
	// writes (vlfs.FS.SetKernelTimes says how they still reach the disk).
	if fsys != nil { // nil: tests of the serving loop alone
		fsys.SetKernelTimes(!o.NoWritebackCache && !o.ReadOnly)
	}
	s := &Server{fs: fsys, conn: c, dir: dir, opt: o, started: time.Now()}
	s.core = fuseserve.Core{Name: "fusefs", Logf: o.Logf, Debug: o.Debug, Handle: s.dispatch, Errno: s.errno}
	s.clients.window = o.ConcurrencyWindow
	s.handles.init()
	s.stamps.init()
	s.refresh.init(s.refreshPending)
	s.ra.open(o.Image, o.ImageReadahead)
	s.bufs.New = func() any { b := make([]byte, maxIOSize); return &b }
	return s
}

// start starts the readers.
func (s *Server) start() { s.pool.start(s.opt.Readers, s.opt.MaxReaders, s.reader) }

// Readahead is the kernel's read-ahead window of the mount in KiB as Mount
// left it (0: unknown), and why Mount could not widen it, if it could not
// (not root, or a read-only /sys).
func (s *Server) Readahead() (kb int, err error) { return s.readaheadKB, s.readaheadErr }

// Dir is the mount point.
func (s *Server) Dir() string { return s.dir }

// Wait blocks until the kernel ends the connection (after an unmount or an
// abort) and every request in flight has been answered, then closes the
// connection. It returns the error of closing it.
func (s *Server) Wait() error {
	s.pool.wait()
	s.closeOnce.Do(func() {
		s.refresh.close()
		s.closeErr = s.conn.Close()
		s.ra.close()
	})
	return s.closeErr
}

// Unmount unmounts the server's mount point; Wait returns afterwards.
// It fails with an error wrapping ErrBusy while the mount is in use.
func (s *Server) Unmount() error { return Unmount(s.dir, false) }

// Counters returns the FUSE requests answered so far, by opcode.
func (s *Server) Counters() map[string]OpCount { return s.ops.snapshot() }

// RequestHists returns each FUSE opcode's histogram of answer times so
// far, by the names Counters uses; a benchmark subtracts two of them
// (wallhist.Snapshot.Sub) for one phase's percentiles.
func (s *Server) RequestHists() map[string]wallhist.Snapshot { return s.ops.hists() }
