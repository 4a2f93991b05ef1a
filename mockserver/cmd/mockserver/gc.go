package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the binary's collector target, where Go's own default is 100. A test
// server keeps every record until its bounds (-retention, -finished-tasks) fill, so its live
// heap grows under load, and at 100 the collector marks that whole heap again for every
// live heap's worth of garbage. At 400 it runs a quarter as often (a create under load
// costs 0.68x the instructions it does at 100), and the heap may reach five times the live
// data instead of twice. The
// live data stays bounded by the same records (docs/reliability.md §7), so the memory does
// too, at a higher ceiling; a test suite's live heap is a few tens of MB.
const defaultGCPercent = 400

// setGCPercent applies -gc-percent: the flag when given, else GOGC from the environment when
// set (the runtime has read it already), else defaultGCPercent.
func setGCPercent(percent int, given bool) {
	if !given {
		if _, ok := os.LookupEnv("GOGC"); ok {
			return
		}
	}
	debug.SetGCPercent(percent)
}
