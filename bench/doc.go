// Package bench holds the benchmarks and paper experiments behind
// `vlfs bench NAME`, and the report format they all share (report.go).
//
// Each benchmark is a function from a config struct to a *Report; the
// command-line layer (cmd/vlfs/bench_*.go) only parses flags and prints.
// Simulated benchmarks are deterministic for a given seed. Nothing here
// keeps package-level state.
package bench
