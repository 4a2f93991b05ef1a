package gen

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

func TestWorkspaceSizes(t *testing.T) {
	ws, err := taskrouter.ParseWorkspace(Workspace(Config{Seed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	got := []int{len(ws.Workers), len(ws.Queues), len(ws.Workflows), len(ws.Activities)}
	if diff := cmp.Diff([]int{240, 30, 5, 4}, got); diff != "" {
		t.Errorf("workers, queues, workflows, activities (-want +got):\n%s", diff)
	}
}

func TestEventsAreDeterministicAndReadable(t *testing.T) {
	cfg := Config{Seed: 7, Workers: 60, Events: 3000}
	var a, b bytes.Buffer
	if err := Events(cfg, &a); err != nil {
		t.Fatal(err)
	}
	if err := Events(cfg, &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same seed made two different histories")
	}
	counts := map[string]int{}
	err := taskrouter.ReadEvents(bytes.NewReader(a.Bytes()), func(e taskrouter.Event) error {
		counts[e.Type]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != 3000 {
		t.Errorf("%d events, want 3000", total)
	}
	for _, typ := range []string{taskrouter.EventTaskCreated, taskrouter.EventReservationCreated, taskrouter.EventReservationAccepted,
		taskrouter.EventReservationRejected, taskrouter.EventReservationTimeout, taskrouter.EventTaskCompleted, taskrouter.EventWorkerActivityUpdate} {
		if counts[typ] == 0 {
			t.Errorf("no %s event in %v", typ, counts)
		}
	}
}

// TestMoreQueues: past the 30 queues the workflows route to, Queues adds skill queues of two
// to four terms, each of its own sid and name, that parse, plan as skill tags or a queue tag,
// and most select workers of the generated workspace.
func TestMoreQueues(t *testing.T) {
	ws, err := taskrouter.ParseWorkspace(Workspace(Config{Seed: 1, Workers: 400, Queues: 300}))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Queues) != 300 {
		t.Fatalf("%d queues, want 300", len(ws.Queues))
	}
	sids, names := map[string]bool{}, map[string]bool{}
	for _, q := range ws.Queues {
		if sids[q.Sid] || names[q.FriendlyName] {
			t.Errorf("queue %s %q: sid or name repeated", q.Sid, q.FriendlyName)
		}
		sids[q.Sid], names[q.FriendlyName] = true, true
	}
	// The shape is pinned: the benchmark's figures are for these queues.
	want := [][2]string{
		{"billing refunds en #30", "skills HAS 'billing' AND skills HAS 'refunds' AND languages HAS 'en'"},
		{"refunds tech en level 3 #31", "skills HAS 'refunds' AND skills HAS 'tech' AND languages HAS 'en' AND level >= 3"},
		{"tech network en es #32", "skills HAS 'tech' AND skills HAS 'network' AND languages HAS 'en' AND languages HAS 'es'"},
		{"network sales es #33", "skills HAS 'network' AND skills HAS 'sales' AND languages HAS 'es'"},
		{"sales retention es level 2 #34", "skills HAS 'sales' AND skills HAS 'retention' AND languages HAS 'es' AND level >= 2"},
		{"retention fraud es fr #35", "skills HAS 'retention' AND skills HAS 'fraud' AND languages HAS 'es' AND languages HAS 'fr'"},
	}
	var got [][2]string
	for _, q := range ws.Queues[30:36] {
		got = append(got, [2]string{q.FriendlyName, q.TargetWorkers})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("queues 30-35 (-want +got):\n%s", diff)
	}
	for _, q := range ws.Queues {
		if q.MaxReservedWorkers != 1 || q.TaskOrder != "FIFO" {
			t.Errorf("queue %s: max_reserved_workers %d, task_order %s", q.Sid, q.MaxReservedWorkers, q.TaskOrder)
		}
	}
	p := plan.Build(ws, plan.Options{Now: time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)})
	empty := 0
	strategies := map[plan.Strategy]int{}
	for _, s := range p.Segments[30:] {
		strategies[s.Strategy]++
		if len(s.Workers) == 0 {
			empty++
		}
	}
	if empty > 270/4 || strategies[plan.StrategySkills] == 0 || strategies[plan.StrategyQueueTag] == 0 {
		t.Errorf("of 270 more queues: %d select nobody; strategies %v", empty, strategies)
	}
	if n := len(gen30(t).Queues); n != 30 {
		t.Errorf("default: %d queues", n)
	}
}

// gen30 is a workspace asked for fewer queues than the 30 the workflows need: it has 30.
func gen30(t *testing.T) *taskrouter.Workspace {
	t.Helper()
	ws, err := taskrouter.ParseWorkspace(Workspace(Config{Seed: 1, Queues: 7}))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestConfigDefaults: the sizes and start Config documents (default 240 workers and at least
// 40, at least 30 queues, 100,000 events, a start on Monday 2026-11-02 08:00 UTC), and values
// that are set are kept.
func TestConfigDefaults(t *testing.T) {
	monday := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	later := time.Date(2027, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name    string
		in, out Config
	}{
		{"zero", Config{}, Config{Workers: 240, Queues: 30, Events: 100_000, Start: monday}},
		{"negative", Config{Workers: -1, Queues: -1, Events: -1}, Config{Workers: 240, Queues: 30, Events: 100_000, Start: monday}},
		{"smallest kept", Config{Seed: 5, Workers: 40, Queues: 30, Events: 1, Start: later}, Config{Seed: 5, Workers: 40, Queues: 30, Events: 1, Start: later}},
		{"raised to the minimum", Config{Workers: 39, Queues: 29, Events: 2}, Config{Workers: 40, Queues: 30, Events: 2, Start: monday}},
		{"one worker", Config{Workers: 1}, Config{Workers: 40, Queues: 30, Events: 100_000, Start: monday}},
		{"larger kept", Config{Workers: 241, Queues: 31, Events: 100_001}, Config{Workers: 241, Queues: 31, Events: 100_001, Start: monday}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.out, tt.in.withDefaults()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if monday.Weekday() != time.Monday {
		t.Errorf("the default start is a %s", monday.Weekday())
	}
}
