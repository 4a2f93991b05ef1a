package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParkedTaskClockStops: a parked task's clocks stop (docs/contract.md §7: the SLA does
// not run while parked), so they neither show in NextDeadline nor wake the engine: under the
// platform rules another task's offer still expires on the maintenance sweep after its
// deadline, not at the instant the parked task's SLA would have run out.
func TestParkedTaskClockStops(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform, MaintenanceInterval: 5 * time.Second, OfferTimeout: 10 * time.Second})
	if h.now.UnixNano()%int64(5*time.Second) != 0 {
		t.Fatal("precondition: the harness starts on a sweep")
	}
	h.worker("w1", "p") // t0+1s
	h.worker("w2", "o") // t0+2s
	// Created at t0+3s, its SLA would run out at t0+14.5s; the first rejection parks it at
	// t0+5s.
	h.taskIn(TaskInput{ID: "parked", Tags: []string{"p"}, Clocks: &Clocks{ExpireAfter: 11500 * time.Millisecond, MaxRejections: 1}})
	// At t0+4s: the offer's deadline is t0+14s, its sweep t0+15s.
	h.task("offered", "o")
	h.reject("parked", "w1")
	if got := h.state()["parked"]; got != "parked" {
		t.Fatalf("precondition: the rejection parks the task, got %s", got)
	}
	next, ok := h.e.NextDeadline()
	if want := t0.Add(15 * time.Second); !ok || !next.Equal(want) {
		t.Errorf("next deadline: got %v %v, want the offer's sweep %v", next, ok, want)
	}
	h.events = nil
	h.advance(20*time.Second - 5*time.Second)
	var got []string
	for _, ev := range h.events {
		if ev.Kind == EventTaskExpired {
			got = append(got, ev.TaskID+" at "+ev.At.Sub(t0).String())
		}
	}
	if diff := cmp.Diff([]string{"offered at 15s"}, got); diff != "" {
		t.Errorf("expiries (-want +got):\n%s", diff)
	}
}
