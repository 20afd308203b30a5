package main

import "flag"

// quickSamples is the value a size flag takes under --quick: small, unless
// the user set the flag explicitly, which wins.
func quickSamples(fl *flag.FlagSet, name string, v, small int) int {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if set {
		return v
	}
	return small
}
