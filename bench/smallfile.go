package bench

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vlfs"
)

// SmallfileConfig is Figure 6 of the virtual-log paper: create many small
// files, read them after a cache flush, delete them.
type SmallfileConfig struct {
	Model      *disk.Model
	DiskBytes  int64 // image size; default 128 MiB
	Files      int   // default 1500
	FileBytes  int   // default 1024
	Placements []vld.Placement
	// Head is the head model eager placement writes by: nil is the
	// simulator's own head (the oracle), else a profile from vlfs profile.
	Head *profile.Profile
}

// Smallfile runs the three phases on vlfs for each placement, in process,
// on the simulated clock. Semantics as UFS in the paper: with inplace and
// eager every create and every delete is synchronous (an fsync after each
// file, which in vlfs commits data and metadata together); with lfs they
// are buffered and one sync ends the phase.
func Smallfile(cfg SmallfileConfig) (*Report, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("smallfile: no disk model: %w", disk.ErrInvalidModel)
	}
	cfg.DiskBytes = cmpOr(cfg.DiskBytes, 128<<20)
	cfg.Files = int(cmpOr(int64(cfg.Files), 1500))
	cfg.FileBytes = int(cmpOr(int64(cfg.FileBytes), 1024))
	if len(cfg.Placements) == 0 {
		cfg.Placements = Placements
	}
	rep := &Report{
		Bench: "smallfile", Disk: cfg.Model.Params(), Clock: ClockSimulated,
		Params:  map[string]any{"disk_bytes": cfg.DiskBytes, "files": cfg.Files, "file_bytes": cfg.FileBytes, "head": headName(cfg.Head)},
		Columns: []string{"placement", "phase", "head_model", "time_ms", "mb_s", "normalized"},
		Notes: []string{
			"inplace and eager: an fsync after every create and every unlink (UFS's synchronous metadata; a vlfs commit also makes the 1 KB of data durable); lfs: buffered, one sync at the end of each phase",
			"read: after an unmount and mount (the cache flush); each file looked up and read whole",
			"normalized = inplace time / this time for the phase (> 1 is faster), as in Figure 6",
			"head_model: what the mounted volume says eager placement writes by: simulated (the oracle) or profile (--head profile:FILE); inplace and lfs do not consult it",
		},
	}
	for _, p := range cfg.Placements {
		rows, err := smallfileRun(cfg, p)
		if err != nil {
			return nil, fmt.Errorf("smallfile %s: %w", p, err)
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	normalise(rep.Rows)
	return rep, nil
}

func cmpOr(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

func smallfileRun(cfg SmallfileConfig, p vld.Placement) ([]map[string]any, error) {
	e, err := newFSEnv(cfg.Model, cfg.DiskBytes, p, cfg.Head)
	if err != nil {
		return nil, err
	}
	sync := p != vld.PlaceLFS
	data := make([]byte, cfg.FileBytes)
	for i := range data {
		data[i] = byte(i)
	}
	name := func(i int) string { return fmt.Sprintf("f%05d", i) }
	total := int64(cfg.Files) * int64(cfg.FileBytes)
	var rows []map[string]any
	create, err := e.phase(func() error { return smallCreate(e.fs, cfg.Files, name, data, sync) })
	if err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	rows = append(rows, e.phaseRow(p, "create", create, total))
	if err := e.remount(); err != nil {
		return nil, err
	}
	read, err := e.phase(func() error { return smallRead(e.fs, cfg.Files, name, len(data)) })
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	rows = append(rows, e.phaseRow(p, "read", read, total))
	del, err := e.phase(func() error { return smallDelete(e.fs, cfg.Files, name, sync) })
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	rows = append(rows, e.phaseRow(p, "delete", del, total))
	return rows, e.close()
}

func smallCreate(fs *vlfs.FS, n int, name func(int) string, data []byte, sync bool) error {
	for i := 0; i < n; i++ {
		a, err := fs.Create(vlfs.RootIno, name(i), 0o644, 0, 0)
		if err != nil {
			return err
		}
		if _, err := fs.Write(a.Ino, 0, data); err != nil {
			return err
		}
		if sync {
			if err := fs.Fsync(a.Ino, false); err != nil {
				return err
			}
		}
	}
	return fs.Sync()
}

func smallRead(fs *vlfs.FS, n int, name func(int) string, size int) error {
	buf := make([]byte, size)
	for i := 0; i < n; i++ {
		a, err := fs.Lookup(vlfs.RootIno, name(i))
		if err != nil {
			return err
		}
		if k, err := fs.Read(a.Ino, 0, buf); err != nil || k != size {
			return fmt.Errorf("%s: read %d of %d bytes: %v", name(i), k, size, err)
		}
	}
	return nil
}

func smallDelete(fs *vlfs.FS, n int, name func(int) string, sync bool) error {
	for i := 0; i < n; i++ {
		if err := fs.Unlink(vlfs.RootIno, name(i)); err != nil {
			return err
		}
		if sync {
			if err := fs.Sync(); err != nil {
				return err
			}
		}
	}
	return fs.Sync()
}
