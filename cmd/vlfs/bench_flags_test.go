package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helpFlags reads the flag listing of `vlfs bench NAME -h` (the flag
// package's PrintDefaults) as "name:type=default" entries, sorted: the
// user's view of a subcommand's flags. A default is what PrintDefaults
// appends, told apart from a "(default ...)" that a usage text writes
// itself by its quoting (strings) or by parsing as the flag's type.
func helpFlags(t *testing.T, name string) []string {
	t.Helper()
	code, out, errb := runBenchCmd(t, "bench", name, "-h")
	if code != exitUsage || out != "" {
		t.Fatalf("bench %s -h: exit %d, stdout %q", name, code, out)
	}
	var flags []string
	var head, usage string
	flush := func() {
		if head != "" {
			flags = append(flags, head+"="+printedDefault(head, usage))
		}
	}
	for _, line := range strings.Split(errb, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			flush()
			// "  -name type", "  -name" (a bool) or "  -q\tusage".
			f, rest, _ := strings.Cut(strings.TrimPrefix(line, "  -"), "\t")
			n, typ, _ := strings.Cut(f, " ")
			head, usage = n+":"+typ, rest
		case strings.HasPrefix(line, "    \t"):
			usage += " " + strings.TrimPrefix(line, "    \t")
		}
	}
	flush()
	slices.Sort(flags)
	// Compact: a subcommand that printed its usage twice lists its flags once.
	return slices.Compact(flags)
}

var defaultSuffix = regexp.MustCompile(`\(default (.*)\)$`)

// printedDefault is the default PrintDefaults appended to usage, or "".
func printedDefault(head, usage string) string {
	m := defaultSuffix.FindStringSubmatch(strings.TrimSpace(usage))
	if m == nil {
		return ""
	}
	v := m[1]
	var err error
	switch head[strings.Index(head, ":")+1:] {
	case "string":
		v, err = strconv.Unquote(v)
	case "int":
		_, err = strconv.ParseInt(v, 10, 64)
	case "uint":
		_, err = strconv.ParseUint(v, 10, 64)
	case "float":
		_, err = strconv.ParseFloat(v, 64)
	case "duration":
		_, err = time.ParseDuration(v)
	case "":
		_, err = strconv.ParseBool(v)
	}
	if err != nil {
		return ""
	}
	return v
}

// benchFlagsBefore is every bench subcommand's flags as `-h` listed them
// before the subcommands shared their flag setup (benchFlags), as
// helpFlags reads them; $TMPDIR stands for os.TempDir(). A flag is a user
// interface: none may disappear or change its type or default.
func benchFlagsBefore() map[string][]string {
	return map[string][]string{
		"batch":      {"arrivals:string=poisson,hyperexp-reads,hyperexp-writes,zero-seek,zero-seek-hyperexp-reads", "block-size:int=8192", "disk:string=carson-setia", "experiments:string=model,live", "json:=", "live-blocks:int=", "live-periods:int=20", "max-batch:int=32", "model-periods:int=2000", "modes:string=cstar,track,segment,fifo", "placement:string=eager", "quick:=", "seed:int=1"},
		"breakdown":  {"compacted:=", "disk-mib:int=128", "disk:string=", "fs-version:uint=", "head:string=sim", "json:=", "pieces:string=block", "placement:string=inplace,eager,vlfs", "quick:=", "seed:int=1", "seeds:int=1", "updates:int=2000", "utilization:float=0.8"},
		"fullness":   {"dir:string=$TMPDIR", "disk:string=st19101", "duration:duration=5s", "json:=", "levels:string=0,50,80,90,95,99", "q:=", "quick:=", "seed:int=1", "sim-updates:int=2000", "size:string=1GiB", "targets:string=vlfs-compactor-on,vlfs-compactor-off,ext4"},
		"headmodels": {"dir:string=", "disk-mib:int=", "disk:string=st19101", "head:string=", "json:=", "quick:=", "seed:int=1", "seeds:int=1", "updates:int=2000", "workload:string=updates"},
		"hostflush":  {"dir:string=", "file-mib:int=256", "json:=", "quick:=", "samples:int=3000", "seed:int=1"},
		"idle":       {"burst-kb:string=", "clean-policy:string=cost-benefit", "commit-each-step:=", "disk-mib:int=128", "disk:string=st19101,hp97560", "head:string=sim", "idle-delay-ms:float=1", "idle-ms:string=", "json:=", "log-window:float=", "placement:string=eager,lfs", "policy:string=cost-benefit", "quick:=", "seed:int=1", "settle-blocks:int=", "start:string=predicted", "step-blocks:int=4", "target-empty:float=0.25", "updates:int=2048", "utilization:float=0.8", "vlfs:=true"},
		"largefile":  {"disk-mib:int=128", "disk:string=st19101", "file-mib:int=10", "head:string=sim", "io-kib:int=64", "json:=", "placement:string=all", "quick:=", "seed:int=1"},
		"locate":     {"disk:string=", "json:=", "placement:string=eager", "quick:=", "samples:int=50000", "seed:int=1", "unit-sectors:int=1", "window:int=100"},
		"logical":    {"clock:string=virtual", "disk-mib:int=256", "disk:string=st19101", "driver:string=", "head:string=sim", "json:=", "no-layers:=", "quick:=", "seed:int=1", "sync:string=fsync", "upper:string=", "utilizations:string=0.5,0.8", "v:=", "warmup:int=", "writes:int=1000"},
		"mountbatch": {"dir:string=", "disk:string=st19101", "duration:duration=", "json:=", "loads:string=A,B,C,D,S2,A-ip,B-ip,C-ip,D-ip", "modes:string=cstar,segment,fifo", "period-ms:float=5000", "profile:string=", "quick:=", "seed:int=1"},
		"peers":      {"cpuprofile:string=", "dir:string=$TMPDIR", "disk:string=st19101", "duration:duration=", "files:string=", "fs-version:uint=", "head:string=sim", "json:=", "loopback:string=", "mix-duration:duration=", "profile:string=", "q:=", "quick:=", "rounds:int=1", "seq-size:string=", "size:string=", "sparse:=", "sync-ios:string=", "targets:string=native,fuse2fs,loopback,vlfs", "workloads:string=fio,varmail,oltp,meta,sqlite,mix"},
		"ranges":     {"disk:string=hpc2247a", "ecs-targets:int=", "figures:string=", "json:=", "ops:int=", "quick:=", "scheduler:string=hrs", "seed:uint=1", "write-blocks:int=1"},
		"scale":      {"dir:string=", "disk:string=st19101", "file-kib:int=4", "json:=", "large-disk:string=st4000nm0023", "large-files:int=", "large-gib:int=1024", "mem-files:int=1000000", "mem-image-mib:int=2048", "mount-files:int=100000", "mount-image-mib:int=1024", "mounts:int=3", "quick:="},
		"scaling":    {"dir:string=$TMPDIR", "disk:string=st19101", "duration:duration=6s", "json:=", "loopback:string=", "q:=", "quick:=", "size:string=1GiB", "targets:string=native,fuse2fs,loopback,vlfs", "threads:string=1,2,4,8,16"},
		"smallfile":  {"disk-mib:int=128", "disk:string=st19101", "file-bytes:int=1024", "files:int=1500", "head:string=sim", "json:=", "placement:string=all", "quick:="},
		"threshold":  {"disk:string=", "json:=", "placement:string=eager", "quick:=", "seed:int=1", "unit-sectors:int=1", "writes:int=200000"},
		"updates":    {"clean-policy:string=cost-benefit", "disk-mib:int=128", "disk:string=st19101", "fs-version:uint=", "head:string=sim", "json:=", "pieces:string=block", "placement:string=all", "quick:=", "seed:int=1", "seeds:int=1", "updates:int=2000"},
	}
}

// TestBenchFlagsKept: every bench subcommand still has the flags, types
// and defaults it had, and every benchmark is in the table.
func TestBenchFlagsKept(t *testing.T) {
	want := benchFlagsBefore()
	for name := range benchmarks() {
		if _, ok := want[name]; !ok {
			t.Errorf("bench %s: not in benchFlagsBefore", name)
		}
	}
	for name, flags := range want {
		t.Run(name, func(t *testing.T) {
			for i, f := range flags {
				flags[i] = strings.ReplaceAll(f, "$TMPDIR", os.TempDir())
			}
			slices.Sort(flags)
			if got := helpFlags(t, name); !slices.Equal(got, flags) {
				t.Errorf("bench %s -h flags changed:\n got %q\nwant %q", name, got, flags)
			}
		})
	}
}

// TestBenchHelpNoIssueNumbers: the help a user reads says what a
// benchmark measures, not which issue asked for it.
func TestBenchHelpNoIssueNumbers(t *testing.T) {
	issue := regexp.MustCompile(`(?i)\bissues? [0-9]`)
	_, out, _ := runBenchCmd(t, "bench", "help")
	texts := map[string]string{"bench help": out}
	for name := range benchmarks() {
		_, _, errb := runBenchCmd(t, "bench", name, "-h")
		texts["bench "+name+" -h"] = errb
	}
	for what, text := range texts {
		if m := issue.FindString(text); m != "" {
			t.Errorf("%s cites %q:\n%s", what, m, text)
		}
	}
}
