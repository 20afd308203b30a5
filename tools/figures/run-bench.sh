#!/bin/sh
# run-bench.sh: the benchmark suite behind `make bench`. Runs each
# benchmark once with --json into $RESULTS/NAME.json, prints its table
# (vlfs bench show) and a progress line with the time taken, and records
# the machine, the date and the suite's wall time in $RESULTS/machine.json
# (tools/figures puts them at the top of docs/results.md).
#
#   VLFS=./bin/vlfs RESULTS=docs/results QUICK=1 sh tools/figures/run-bench.sh
#
# QUICK=1 adds --quick to every benchmark (the CI smoke run, < 2 minutes).
# The full suite must fit in 20 minutes on 2 cores: idle runs 3 burst
# sizes x 7 idle intervals (not the 5 x 9 of its defaults) and peers runs
# a 1 GiB image, 256 MiB sequential files, a 5,000-file metadata storm
# and 8 s timed workloads (fuse2fs creates ~125 files/s: 100,000 files
# alone took 20 minutes). fullness runs its defaults (1 GiB images, six
# levels, 5 s phases: about 8 minutes). `vlfs bench NAME` with no flags runs the full
# sizes. Arguments after @full are dropped in QUICK mode (they would
# override --quick's own smaller sizes).
# A benchmark registered in `vlfs bench help` but not listed below runs
# once with its defaults, so new benchmarks are never silently left out.
# A failing benchmark is reported and the suite goes on; the exit status
# is then 1.
set -u
VLFS=${VLFS:-./bin/vlfs}
RESULTS=${RESULTS:-docs/results}
QUICK=${QUICK:-}
mkdir -p "$RESULTS"

q=""
[ -n "$QUICK" ] && q="--quick"

# The suite: "FILE-NAME bench-name args...". Figures read these files.
suite() {
	cat <<EOF
locate-hp97560 locate --disk hp97560
locate-st19101 locate --disk st19101
threshold-st19101 threshold --disk st19101
threshold-hp97560 threshold --disk hp97560
updates updates --disk st19101 --seeds 4
updates-hp97560 updates --disk hp97560 --seeds 4
breakdown breakdown --placement all --seeds 4
breakdown-compacted breakdown --compacted --seeds 4
idle idle @full --burst-kb 128,512,2048 --idle-ms 0,10,20,50,200,500,1000,2000
batch batch
mountbatch mountbatch @full --duration 10s
headmodels-st19101 headmodels --disk st19101 --seeds 3
headmodels-hpc2247a headmodels --disk hpc2247a --seeds 3
headmodels-journal headmodels --disk st19101 --workload journal
ranges ranges
smallfile smallfile
largefile largefile
logical logical
peers peers @full --size 1GiB --seq-size 256MiB --files 5000 --duration 8s
scaling scaling @full --duration 4s
fullness fullness
hostflush hostflush
EOF
}

listed=$(suite | awk '{print $2}' | sort -u)
registered=$("$VLFS" bench help | awk '/^  [a-z]/{print $1}')
extra=""
for b in $registered; do
	echo "$listed" | grep -qx "$b" || extra="$extra $b"
done

plan=$( (suite; for b in $extra; do echo "$b $b"; done) | while read -r file name args; do
	echo "$registered" | grep -qx "$name" && echo "$file $name $args"
done)
total=$(echo "$plan" | grep -c .)
for b in $listed; do
	echo "$registered" | grep -qx "$b" || echo "run-bench: skip $b: not registered in this build of vlfs" >&2
done

start=$(date +%s)
i=0
status=0
summary=""
echo "$plan" | {
	while read -r file name args; do
		i=$((i + 1))
		if [ -n "$QUICK" ]; then
			args=${args%%@full*}
		else
			args=$(echo "$args" | sed 's/@full *//')
		fi
		t0=$(date +%s)
		echo "run-bench: [$i/$total] vlfs bench $name $args $q" >&2
		# shellcheck disable=SC2086
		if "$VLFS" bench $name $args $q --json < /dev/null > "$RESULTS/$file.json.tmp"; then
			mv "$RESULTS/$file.json.tmp" "$RESULTS/$file.json"
			"$VLFS" bench show "$RESULTS/$file.json" < /dev/null
			echo
		else
			echo "run-bench: vlfs bench $name FAILED (kept the previous $RESULTS/$file.json, if any)" >&2
			rm -f "$RESULTS/$file.json.tmp"
			status=1
		fi
		t1=$(date +%s)
		summary="$summary $file=$((t1 - t0))"
		echo "run-bench: [$i/$total] $name done in $((t1 - t0)) s, $((t1 - start)) s so far" >&2
	done
	end=$(date +%s)
	cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//; s/"/\\"/g')
	secs=$(for kv in $summary; do printf '"%s": %s, ' "${kv%%=*}" "${kv#*=}"; done | sed 's/, $//')
	cat > "$RESULTS/machine.json" <<EOF
{
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "nproc": $(nproc),
  "cpu": "${cpu:-unknown}",
  "kernel": "$(uname -r)",
  "go": "$(go env GOVERSION 2>/dev/null || echo unknown)",
  "quick": $([ -n "$QUICK" ] && echo true || echo false),
  "suite_s": $((end - start)),
  "bench_s": {$secs},
  "load_avg_at_end": "$(cut -d' ' -f1-3 /proc/loadavg)"
}
EOF
	echo "run-bench: suite done in $((end - start)) s ($RESULTS/machine.json)" >&2
	exit $status
}
