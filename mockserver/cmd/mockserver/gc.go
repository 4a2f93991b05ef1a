package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the binary's garbage-collection target when GOGC is not set: a mock server's
// live heap is small (a test suite's tasks and workers), so at Go's default of 100 it collects
// every few hundred requests and spends about a fifth of its CPU there under load. At 400 the
// heap may grow to five times the live data before a collection, which for a test suite is
// megabytes, and collections become a quarter as frequent (BENCHMARKS.md, "Mock server CPU
// per create"). GOGC in the environment still decides when set.
const gcPercent = 400

// tuneGC applies gcPercent unless the environment chose.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
