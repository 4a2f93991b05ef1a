package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBenchName(t *testing.T) {
	tests := []struct {
		workers, queued int
		want            string
	}{
		{10_000, 100_000, "10k-workers-100k-tasks"},
		{100_000, 1_000_000, "100k-workers-1M-tasks"},
		{1000, 10_000, "1k-workers-10k-tasks"},
		{2500, 999, "2500-workers-999-tasks"},
		{0, 1_500_000, "0-workers-1500k-tasks"},
	}
	for _, tc := range tests {
		if got := BenchName(tc.workers, tc.queued); got != tc.want {
			t.Errorf("BenchName(%d, %d) = %q, want %q", tc.workers, tc.queued, got, tc.want)
		}
	}
}

func TestEngineBenchLines(t *testing.T) {
	tests := []struct {
		name string
		res  BenchResult
		want []string
	}{
		{
			name: "both cases, odd sample count",
			res:  BenchResult{CreateAndMatchMs: []float64{300, 100, 200}, FreeCapacityMs: []float64{1.5, 0.5, 2.5}, Queued: 100_000},
			want: []string{
				"BenchmarkEngine/10k-workers-100k-tasks/best-match/create-and-match 3 200000000 ns/op 200000 p50-µs 300000 max-µs 100000 queued",
				"BenchmarkEngine/10k-workers-100k-tasks/best-match/free-capacity 3 1500000 ns/op 1500 p50-µs 2500 max-µs",
			},
		},
		{
			name: "even count takes the upper median, as the human line does",
			res:  BenchResult{CreateAndMatchMs: []float64{4, 1, 2, 3}, Queued: 7},
			want: []string{"BenchmarkEngine/10k-workers-100k-tasks/best-match/create-and-match 4 2500000 ns/op 3000 p50-µs 4000 max-µs 7 queued"},
		},
		{name: "no samples, no lines", res: BenchResult{Queued: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EngineBenchLines(10_000, 100_000, FairnessBestMatch, tc.res)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}
