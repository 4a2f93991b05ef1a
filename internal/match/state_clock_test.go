package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStateTaskClock: a State names each task's next clock time, in the engine's zone, and
// the zero time for a task with no clock armed: one without clocks, one whose clocks have
// no time (a rejection budget alone), one accepted (the shelf life stops) and one whose
// clock already fired (parked).
func TestStateTaskClock(t *testing.T) {
	zone := time.FixedZone("UTC+2", 2*60*60)
	start := time.Date(2026, 3, 4, 5, 6, 7, 0, zone)
	e := New(Config{Rules: RulesPlatform})
	now := start
	must := func(_ Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.UpsertWorker(now, WorkerInput{ID: "w1", Tags: []string{"b"}, Available: ptr(true)}))
	must(e.CreateTask(now, TaskInput{ID: "plain", Tags: []string{"a"}}))
	must(e.CreateTask(now, TaskInput{ID: "sla", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: 10 * time.Minute}}))
	must(e.CreateTask(now, TaskInput{ID: "scheduled", Tags: []string{"a"}, Clocks: &Clocks{NotBefore: start.Add(time.Hour), NotAfter: start.Add(2 * time.Hour)}}))
	must(e.CreateTask(now, TaskInput{ID: "budget", Tags: []string{"a"}, Clocks: &Clocks{MaxRejections: 2}}))
	must(e.CreateTask(now, TaskInput{ID: "parks", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: time.Minute, OnExpire: ActionPark}}))
	must(e.CreateTask(now, TaskInput{ID: "held", Tags: []string{"b"}, Clocks: &Clocks{ExpireAfter: time.Minute}}))
	now = now.Add(2 * time.Minute) // "parks" parks at +1m; "held" was accepted first
	must(e.Accept(start.Add(30*time.Second), "held", "w1"))
	e.Advance(now)

	got, status := map[string]time.Time{}, map[string]Status{}
	for _, ts := range e.State().Tasks {
		got[ts.ID], status[ts.ID] = ts.Clock, ts.Status
	}
	wantStatus := map[string]Status{"plain": StatusQueued, "sla": StatusQueued, "scheduled": StatusScheduled,
		"budget": StatusQueued, "parks": StatusParked, "held": StatusAccepted}
	if diff := cmp.Diff(wantStatus, status); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	want := map[string]time.Time{
		"plain":     {},
		"sla":       start.Add(10 * time.Minute),
		"scheduled": start.Add(time.Hour),
		"budget":    {},
		"parks":     {},
		"held":      {},
	}
	// cmp.Diff on time.Time compares with Equal, which ignores the zone: check it apart.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clocks (-want +got):\n%s", diff)
	}
	for id, c := range got {
		if !c.IsZero() && c.Location() != zone {
			t.Errorf("%s: clock in %v, want the engine's zone %v", id, c.Location(), zone)
		}
	}

	// A clock one nanosecond after the epoch is a clock like any other.
	e = New(Config{Rules: RulesPlatform})
	epoch := time.Unix(0, 0).UTC()
	must(e.CreateTask(epoch, TaskInput{ID: "early", Tags: []string{"a"}, Clocks: &Clocks{NotBefore: time.Unix(0, 1)}}))
	if c := e.State().Tasks[0].Clock; !c.Equal(time.Unix(0, 1)) {
		t.Errorf("clock at the epoch's first nanosecond: %v", c)
	}
}
