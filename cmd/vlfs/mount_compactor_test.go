package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMountCompactorFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"i.img", "m"}, exitOK, "on"},
		{[]string{"--compactor=off", "i.img", "m"}, exitOK, "off"},
		{[]string{"-o", "compactor=off", "i.img", "m"}, exitOK, "off"},
		{[]string{"--compactor", "maybe", "i.img", "m"}, exitUsage, ""},
	} {
		a, code := parseMountArgs(tc.args, &strings.Builder{})
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
			continue
		}
		if code != exitOK {
			continue
		}
		if a.compactor != tc.want {
			t.Errorf("%v: compactor %q, want %q", tc.args, a.compactor, tc.want)
		}
		args, err := a.daemonArgs()
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.Index(args, "--compactor"); i < 0 || args[i+1] != tc.want {
			t.Errorf("%v: daemon args %v do not pass --compactor %s", tc.args, args, tc.want)
		}
	}
}

// TestMountCompactorPlacement: the compactor is for eager volumes. On an
// inplace or lfs image, "on" (the default) is a no-op the mount's log
// says, stats show it off, and vlfs compact refuses the image; on an eager
// image it runs.
func TestMountCompactorPlacement(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		place string
		runs  bool
	}{
		{"eager", true},
		{"inplace", false},
		{"lfs", false},
	} {
		t.Run(tc.place, func(t *testing.T) {
			img := filepath.Join(dir, tc.place+".img")
			mustRun(t, "mkfs", "--quiet", "--size", "32MiB", "--placement", tc.place, img)
			a, code := parseMountArgs([]string{"--compactor", "on", img, filepath.Join(dir, "mnt")}, io.Discard)
			if code != exitOK {
				t.Fatalf("parse: exit %d", code)
			}
			var log strings.Builder
			m, err := openImage(a, func(f string, args ...any) { fmt.Fprintf(&log, f+"\n", args...) })
			if err != nil {
				t.Fatal(err)
			}
			running := m.compactor != nil
			if err := m.close(); err != nil {
				t.Fatal(err)
			}
			said := strings.Contains(log.String(), "compactor off: "+img+" has placement "+tc.place)
			if running != tc.runs || said == tc.runs {
				t.Fatalf("placement %s: compactor running %v (want %v), log %q", tc.place, running, tc.runs, log.String())
			}
			code, out, errs := runCLI(t, "compact", "--quiet", img)
			refused := code == exitFailure && strings.Contains(errs, "eager volumes only")
			if refused == tc.runs {
				t.Fatalf("vlfs compact on a %s image: exit %d\n%s%s", tc.place, code, out, errs)
			}
		})
	}
}
