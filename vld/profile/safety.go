package profile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// devNum is a block device's major:minor.
type devNum struct{ major, minor uint32 }

func (d devNum) String() string { return fmt.Sprintf("%d:%d", d.major, d.minor) }

// CheckBlockDevice refuses a block device the measurement must not write:
// one that is mounted, used as swap, or held by another device (LVM,
// device mapper, RAID), itself or through a partition, whatever
// destroyData says; and, unless destroyData, one whose first bytes, or the
// first bytes of the region at offset, hold a file system, partition table
// or vlfs image that Identify recognises (a region inside a whole disk may
// start where a partition's file system does).
func CheckBlockDevice(path string, offset int64, destroyData bool) error {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return fmt.Errorf("%s is not a block device: %w", path, ErrInvalid)
	}
	dev := devNum{unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))}
	if err := checkInUse(path, dev); err != nil {
		return err
	}
	if destroyData {
		return nil
	}
	for _, off := range []int64{0, offset} {
		what, err := identifyAt(path, off)
		if err != nil {
			return err
		}
		if what != "" {
			return fmt.Errorf("%s holds %s at byte %d (use --destroy-data to overwrite it): %w", path, what, off, ErrUnsafe)
		}
	}
	return nil
}

// checkInUse looks for dev and its partitions among mounts, swaps and
// holders.
func checkInUse(path string, dev devNum) error {
	devs := append([]devNum{dev}, partitions(dev)...)
	mounts, err := mountedDevices()
	if err != nil {
		return err
	}
	for _, d := range devs {
		if mp, ok := mounts[d]; ok {
			return fmt.Errorf("%s (device %s) is mounted on %s: %w", path, d, mp, ErrUnsafe)
		}
		if hs, _ := os.ReadDir(fmt.Sprintf("/sys/dev/block/%s/holders", d)); len(hs) > 0 {
			return fmt.Errorf("%s (device %s) is held by %s: %w", path, d, hs[0].Name(), ErrUnsafe)
		}
	}
	if sw := swapDevice(devs); sw != "" {
		return fmt.Errorf("%s is in use as swap (%s): %w", path, sw, ErrUnsafe)
	}
	return nil
}

// partitions lists the device numbers of dev's partitions from sysfs.
func partitions(dev devNum) []devNum {
	dir := fmt.Sprintf("/sys/dev/block/%s", dev)
	entries, _ := os.ReadDir(dir)
	var out []devNum
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "partition")); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "dev"))
		if err != nil {
			continue
		}
		if d, ok := parseDevNum(strings.TrimSpace(string(b))); ok {
			out = append(out, d)
		}
	}
	return out
}

// mountedDevices maps each mounted device number to a mount point.
func mountedDevices() (map[devNum]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("profile: cannot tell whether the device is mounted: %w", err)
	}
	defer f.Close()
	return parseMountInfo(f)
}

// parseMountInfo reads /proc/self/mountinfo lines: "id parent maj:min
// root mountpoint ...". Malformed lines are skipped.
func parseMountInfo(r io.Reader) (map[devNum]string, error) {
	out := map[devNum]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		if d, ok := parseDevNum(f[2]); ok {
			out[d] = f[4]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("profile: reading mountinfo: %w", err)
	}
	return out, nil
}

func parseDevNum(s string) (devNum, bool) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return devNum{}, false
	}
	maj, err1 := strconv.ParseUint(a, 10, 32)
	min, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil {
		return devNum{}, false
	}
	return devNum{uint32(maj), uint32(min)}, true
}

// swapDevice returns the /proc/swaps entry that is one of devs, or "".
func swapDevice(devs []devNum) string {
	b, err := os.ReadFile("/proc/swaps")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(f[0], &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
			continue
		}
		d := devNum{unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))}
		for _, x := range devs {
			if x == d {
				return f[0]
			}
		}
	}
	return ""
}

// identifyAt reads path from off and names what starts there.
func identifyAt(path string, off int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("profile: %w", err)
	}
	defer f.Close()
	head := make([]byte, SignatureBytes)
	n, err := io.ReadFull(io.NewSectionReader(f, off, SignatureBytes), head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", fmt.Errorf("profile: reading %s: %w", path, err)
	}
	return Identify(head[:n]), nil
}
