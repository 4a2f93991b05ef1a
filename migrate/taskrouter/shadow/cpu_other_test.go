//go:build !unix

package shadow

// cpuSeconds is not measured here; the benchmark then reports no cpu-s/op.
func cpuSeconds() float64 { return -1 }
