package vlfs

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// The scale tests measure the mount-time and memory targets
// (docs/vlfs-format.md). They take minutes, so they run only with
// VLFS_SCALE=1.
func scaleImage(t *testing.T, size int64) (string, device.Device) {
	if os.Getenv("VLFS_SCALE") == "" {
		t.Skip("scale test: set VLFS_SCALE=1 to run")
	}
	path := filepath.Join(t.TempDir(), "scale.img")
	dev, err := device.OpenFile(path, device.FileOptions{Create: true, Size: size})
	if err != nil {
		t.Fatal(err)
	}
	if err := Mkfs(dev, MkfsOptions{Model: testModel(t)}); err != nil {
		t.Fatal(err)
	}
	return path, dev
}

// populate makes files files of fileSize bytes in dirs directories.
func populate(t *testing.T, fs *FS, files, dirs, fileSize int) {
	data := make([]byte, fileSize)
	per := files / dirs
	for d := range dirs {
		da := must(fs.Mkdir(RootIno, fmt.Sprintf("d%04d", d), 0o755, 0, 0)).ok(t)
		fs.Forget(da.Ino, 1)
		for i := range per {
			a := must(fs.Create(da.Ino, fmt.Sprintf("file-%07d", i), 0o644, 0, 0)).ok(t)
			if fileSize > 0 {
				must(fs.Write(a.Ino, 0, data)).ok(t)
			}
			fs.Forget(a.Ino, 1)
		}
	}
}

func TestScaleMountTime(t *testing.T) {
	path, dev := scaleImage(t, 1<<30)
	fs := must(Mount(dev, Options{})).ok(t)
	t0 := time.Now()
	populate(t, fs, 100000, 100, 4096)
	t.Logf("created 100,000 files of 4 KiB in %v", time.Since(t0))
	must(0, fs.Close()).ok(t)
	for range 2 {
		dev := must(device.OpenFile(path, device.FileOptions{})).ok(t)
		t0 = time.Now()
		fs = must(Mount(dev, Options{})).ok(t)
		took := time.Since(t0)
		st := fs.Stats()
		t.Logf("mount: %v wall, %.1f ms simulated, %d blocks read", took, st.Vol.Sim.Total(), st.Vol.BlocksRead)
		if took > time.Second {
			t.Errorf("mount took %v, target 1s", took)
		}
		t0 = time.Now()
		must(0, fs.Check()).ok(t)
		t.Logf("check: %v", time.Since(t0))
		must(0, fs.Close()).ok(t)
	}
}

func TestScaleMemory(t *testing.T) {
	path, dev := scaleImage(t, 2<<30)
	fs := must(Mount(dev, Options{})).ok(t)
	t0 := time.Now()
	populate(t, fs, 1000000, 1000, 0)
	must(0, fs.Sync()).ok(t)
	t.Logf("created 1,000,000 files in %v; %s", time.Since(t0), memReport())
	must(0, fs.Close()).ok(t)
	fs = nil
	dev = must(device.OpenFile(path, device.FileOptions{})).ok(t)
	t0 = time.Now()
	fs = must(Mount(dev, Options{})).ok(t)
	t.Logf("mounted in %v; %s", time.Since(t0), memReport())
	for d := 0; d < 1000; d += 10 {
		da := must(fs.Lookup(RootIno, fmt.Sprintf("d%04d", d))).ok(t)
		must(fs.ReadDir(da.Ino)).ok(t)
		must(fs.Lookup(da.Ino, "file-0000500")).ok(t)
	}
	t.Logf("after walking 100 directories: %s", memReport())
	if heap := heapInuse(); heap > 256<<20 {
		t.Errorf("heap in use %d MiB, target 256 MiB", heap>>20)
	}
	must(0, fs.Close()).ok(t)
}

func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func memReport() string {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("heap in use %d MiB, Go sys %d MiB, %s", m.HeapInuse>>20, m.Sys>>20, procStatus("VmRSS", "VmHWM"))
}

// procStatus returns the named lines of /proc/self/status (VmHWM is the
// peak resident set).
func procStatus(keys ...string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "no /proc"
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		for _, k := range keys {
			if strings.HasPrefix(line, k+":") {
				out = append(out, strings.Join(strings.Fields(line), " "))
			}
		}
	}
	return strings.Join(out, ", ")
}
