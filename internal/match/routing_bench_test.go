package match

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkRoutingScale measures a create-and-match at 10,000 ready workers and 100,000
// queued tasks (the BenchmarkScale workload) when the task uses a routing rule: every worker
// holds skill s1 at a level 1-5 and is on one of four teams. A team-bound task walks the
// team's route heap, a task requiring a skill the skill's buckets from level 3 up
// (routeindex.go). The numbers are reported, not held to the tag-only targets.
//
//	go test -run '^$' -bench '^BenchmarkRoutingScale$' -benchtime 20000x ./internal/match/
func BenchmarkRoutingScale(b *testing.B) {
	e, wl := loadReady(b, 10_000, 100_000)
	for i := range 10_000 {
		id := "worker" + strconv.Itoa(i)
		r := &WorkerRouting{Skills: []WorkerSkill{{ID: "s1", Level: 1 + i%5}}, Teams: []string{"team" + strconv.Itoa(i%4)}}
		if _, err := e.SetWorkerRouting(wl.tick(), id, r); err != nil {
			b.Fatal(err)
		}
	}
	cases := []struct {
		name string
		rt   *TaskRouting
	}{
		{"none", nil},
		{"team", &TaskRouting{TeamID: "team1"}},
		{"required-skill", &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s1", MinLevel: 3}}}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			lat := make(latencies, 0, 1<<16)
			matched := 0
			for b.Loop() {
				in := wl.task()
				in.Routing = tc.rt
				now := wl.tick()
				start := time.Now()
				res, err := e.CreateTask(now, in)
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				matched += len(res.DecisionIDs)
			}
			lat.report(b, false)
			b.ReportMetric(float64(matched)/float64(len(lat)), "matched/op")
		})
	}
}
