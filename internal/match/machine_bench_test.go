package match

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMemoryLatency times one dependent load from a random cache line of a buffer
// of each size: what a cache miss costs on the machine running the benchmarks. It puts
// BenchmarkScale in context: a freed slot touches on the order of a hundred lines that
// are not in the cache, so its latency follows this machine's figure, and comparing two
// runs on different days starts here (BENCHMARKS.md, "Matcher under the platform rules").
//
//	go test -run '^$' -bench '^BenchmarkMemoryLatency$' ./internal/match/
func BenchmarkMemoryLatency(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"256KiB", 256 << 10}, {"4MiB", 4 << 20}, {"128MiB", 128 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			next := lineCycle(size.bytes)
			at := int32(0)
			for b.Loop() {
				at = next[at]
			}
			// Keep the result, and make sure the walk stayed on the cycle.
			if at < 0 || int(at) >= len(next) || at%lineInts != 0 {
				b.Fatalf("the walk left the cycle at %d", at)
			}
		})
	}
}

// lineInts is the int32s in a 64-byte cache line.
const lineInts = 16

// lineCycle returns a buffer of the given size in which the first int32 of each cache
// line holds the index of the next line's, the lines forming one cycle in random order,
// so that following it defeats the prefetchers. It fails (panics) if the cycle misses a
// line, which would shorten the walk.
func lineCycle(bytes int) []int32 {
	lines := bytes / (lineInts * 4)
	next := make([]int32, lines*lineInts)
	order := rand.New(rand.NewPCG(1, 2)).Perm(lines)
	for i, l := range order {
		next[l*lineInts] = int32(order[(i+1)%lines] * lineInts)
	}
	at, steps := int32(0), 0
	for {
		at = next[at]
		steps++
		if at == 0 {
			break
		}
	}
	if steps != lines {
		panic("lineCycle: the cycle does not cover every line")
	}
	return next
}

func TestLineCycle(t *testing.T) {
	next := lineCycle(64 * 1024)
	seen := make(map[int32]bool)
	for at := next[0]; !seen[at]; at = next[at] {
		if at%lineInts != 0 {
			t.Fatalf("index %d is not the start of a line", at)
		}
		seen[at] = true
	}
	if want := 64 * 1024 / (lineInts * 4); len(seen) != want {
		t.Fatalf("the cycle visits %d lines, want %d", len(seen), want)
	}
}
