//go:build !race

// Package race reports whether the race detector is compiled in. Timing bars (a ratio to a
// baseline, a latency target) skip under it: the detector slows instrumented code several
// times more than the plain baselines they are measured against, so a bar checked there
// measures the detector, not the code.
package race

// Enabled reports whether the build runs under the race detector.
const Enabled = false
