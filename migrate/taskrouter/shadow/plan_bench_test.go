package shadow

import (
	"fmt"
	"testing"

	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/gen"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// BenchmarkPlanVerified is `taskrouter-migrate plan` without its output: read a generated
// export (seeded) and build the plan verified against the mock server. The sizes share 300
// queues and differ tenfold in workers, so the ratio of their times says whether planning
// grows linearly with the export. The export is generated before the timer starts.
func BenchmarkPlanVerified(b *testing.B) {
	for _, size := range []struct{ workers, queues int }{{2000, 300}, {20000, 300}} {
		b.Run(fmt.Sprintf("workers=%d/queues=%d", size.workers, size.queues), func(b *testing.B) {
			cfg := gen.Config{Seed: 1, Workers: size.workers, Queues: size.queues}
			export := gen.Workspace(cfg)
			b.SetBytes(int64(len(export)))
			b.ReportAllocs()
			cpu0 := cpuSeconds()
			for b.Loop() {
				ws, err := taskrouter.ParseWorkspace(export)
				if err != nil {
					b.Fatal(err)
				}
				p, _, err := PlanVerified(b.Context(), ws, plan.Options{Now: cfg.Start})
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Workers) != size.workers || len(p.Segments) < size.queues {
					b.Fatalf("%d workers, %d segments", len(p.Workers), len(p.Segments))
				}
			}
			// CPU time beside wall time: on a shared machine ns/op includes waiting for a core.
			if cpu0 >= 0 {
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
			}
		})
	}
}
