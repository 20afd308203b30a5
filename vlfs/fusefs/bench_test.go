package fusefs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// BenchmarkSyscalls times common system calls on a mount (wall clock; the
// disk is simulated with the virtual clock, so nothing sleeps) and reports
// the FUSE requests each one causes, with and without the writeback cache.
func BenchmarkSyscalls(b *testing.B) {
	for _, mode := range []struct {
		name string
		opt  fusefs.Options
	}{{"writeback", fusefs.Options{}}, {"writethrough", fusefs.Options{NoWritebackCache: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			m := fstest.MountFS(b, fstest.Options{Fuse: mode.opt})
			f, err := os.Create(filepath.Join(m.Dir, "f"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			block := make([]byte, 4096)
			cases := []struct {
				name string
				op   func(i int) error
			}{
				{"pwrite4K", func(i int) error { _, err := f.WriteAt(block, int64(i%256)*4096); return err }},
				{"fsync", func(int) error { return f.Sync() }},
				{"pwrite4K+fsync", func(i int) error {
					if _, err := f.WriteAt(block, int64(i%256)*4096); err != nil {
						return err
					}
					return f.Sync()
				}},
				{"stat", func(int) error { _, err := os.Stat(f.Name()); return err }},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					b.SetBytes(4096)
					before := total(m.Server.Counters())
					for i := 0; b.Loop(); i++ {
						if err := c.op(i); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(total(m.Server.Counters())-before)/float64(b.N), "requests/op")
				})
			}
		})
	}
}

func total(c map[string]fusefs.OpCount) int64 {
	var n int64
	for _, o := range c {
		n += o.Count
	}
	return n
}
