package main

import (
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
