package main

import "flag"

// quickSamples is the value a size flag takes under --quick: small, unless
// the user set the flag explicitly, which wins.
func quickSamples(fl *flag.FlagSet, name string, v, small int) int {
	quickDefault(fl, name, &v, small)
	return v
}

// quickDefault sets *v to small, --quick's value, unless the user set the
// flag name explicitly, which wins.
func quickDefault[T any](fl *flag.FlagSet, name string, v *T, small T) {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if !set {
		*v = small
	}
}
