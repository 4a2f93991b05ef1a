package shadow

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/gen"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// planAndShadow plans the generated workspace (verified against the mock server) and
// replays the generated history through it.
func planAndShadow(tb testing.TB, cfg gen.Config, events []byte, opts Options) (*plan.Plan, *Report) {
	tb.Helper()
	ws, err := taskrouter.ParseWorkspace(gen.Workspace(cfg))
	if err != nil {
		tb.Fatal(err)
	}
	p, _, err := PlanVerified(tb.Context(), ws, plan.Options{Now: cfg.Start})
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := Replay(tb.Context(), ws, p, bytes.NewReader(events), opts)
	if err != nil {
		tb.Fatal(err)
	}
	return p, rep
}

func genEvents(tb testing.TB, cfg gen.Config) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := gen.Events(cfg, &buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestPlanAndShadowGenerated is the benchmark's workspace with a short history: every
// queue is planned, every untranslatable construct the generator plants is found, and the
// replay compares the reservations.
func TestPlanAndShadowGenerated(t *testing.T) {
	cfg := gen.Config{Seed: 1, Events: 4000}
	events := genEvents(t, cfg)
	p, rep := planAndShadow(t, cfg, events, Options{Shards: 1})
	kinds := map[plan.Kind]bool{}
	for _, k := range p.Summary() {
		kinds[k.Kind] = true
	}
	for _, k := range []plan.Kind{plan.KindKnownWorker, plan.KindTaskVsWorker, plan.KindTimeOfDay} {
		if !kinds[k] {
			t.Errorf("no %s finding; summary %+v", k, p.Summary())
		}
	}
	o := rep.Overall
	if rep.Events != 4000 || o.Reservations == 0 || o.There.Answered() == 0 {
		t.Fatalf("replayed %d events, %d reservations, %d answered", rep.Events, o.Reservations, o.There.Answered())
	}
	// The history reserves members of each queue who are available: the plan's tags make
	// every one of them eligible here too, except where the plan reports a construct it
	// could not translate (the time-of-day queue, the narrowed and known-worker targets).
	if o.EligibleHere*10 < o.Reservations*9 {
		t.Errorf("only %d of %d reserved workers eligible here", o.EligibleHere, o.Reservations)
	}
	if o.FirstChoice > o.EligibleHere || o.FirstChoiceOutcomes.Answered() > o.There.Answered() {
		t.Errorf("inconsistent counts: %+v", o)
	}
	if len(rep.Queues) < 20 {
		t.Errorf("reservations in %d queues only", len(rep.Queues))
	}
	// Three mock servers, each on a stretch of the history, answer as one does.
	_, sharded := planAndShadow(t, cfg, events, Options{Shards: 3})
	if rep.Shards != 1 || sharded.Shards != 3 {
		t.Errorf("shards %d and %d, want 1 and 3", rep.Shards, sharded.Shards)
	}
	sharded.MockRequests, sharded.Shards = rep.MockRequests, rep.Shards
	if diff := cmp.Diff(rep, sharded); diff != "" {
		t.Errorf("three shards (-one +three):\n%s", diff)
	}
}

// BenchmarkPlanAndShadow plans the generated workspace (240 workers, 30 queues, 5
// workflows) and replays 100,000 generated events through the in-process mock server; one
// op is the whole run (plan, verification and replay), the history being generated before
// the timer starts.
func BenchmarkPlanAndShadow(b *testing.B) {
	cfg := gen.Config{Seed: 1}
	events := genEvents(b, cfg)
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for b.Loop() {
		_, rep := planAndShadow(b, cfg, events, Options{})
		if rep.Events != 100_000 {
			b.Fatalf("%d events", rep.Events)
		}
		b.ReportMetric(float64(rep.Overall.Reservations), "reservations/op")
	}
	// CPU time beside wall time: on a shared machine ns/op includes waiting for a core.
	if cpu0 >= 0 {
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	}
}

// TestShardsBounded: Options.Shards past MaxShards counts as MaxShards, and there are never
// more shards than reservations; the result is the same.
func TestShardsBounded(t *testing.T) {
	cfg := gen.Config{Seed: 5, Workers: 40, Events: 1500}
	events := genEvents(t, cfg)
	_, one := planAndShadow(t, cfg, events, Options{Shards: 1})
	n := one.Overall.Reservations
	if n <= MaxShards {
		t.Fatalf("%d reservations: too few to reach MaxShards", n)
	}
	_, many := planAndShadow(t, cfg, events, Options{Shards: 5000})
	if many.Shards != MaxShards || MaxShards != 64 { // 64: the bound the docs state
		t.Errorf("5000 shards asked: %d used, want MaxShards (%d), 64", many.Shards, MaxShards)
	}
	many.MockRequests, many.Shards = one.MockRequests, one.Shards
	if diff := cmp.Diff(one, many); diff != "" {
		t.Errorf("(-one +bounded):\n%s", diff)
	}
	ws, err := taskrouter.ParseWorkspace(gen.Workspace(cfg))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Build(ws, plan.Options{Now: cfg.Start})
	rep, err := Replay(t.Context(), ws, p, bytes.NewReader([]byte(strings.Join([]string{
		created(1, "WT1", ws.Workflows[0].Sid, `{"type":"other"}`),
		reservation(2, "reservation.created", "WT1", ws.Workers[0].Sid, ws.Queues[29].Sid, "WR1"),
	}, "\n"))), Options{Shards: 40})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Shards != 1 {
		t.Errorf("one reservation compared on %d shards", rep.Shards)
	}
}
