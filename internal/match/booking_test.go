package match

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A booked task goes to its booked worker only, waits for that worker while it is busy or
// away, and is open to everyone again once released.
func TestBookingHoldsTheTaskForOneWorker(t *testing.T) {
	tests := []struct {
		name string
		run  func(h *harness)
		want map[string]string
	}{
		{"a queued task waits for its booked worker", func(h *harness) {
			h.available("w2", false)
			h.ok(h.e.Book(h.step(), "t", "w2")) // t is pending with w1 before this
		}, map[string]string{"t": "queued"}},
		{"the booked worker gets it when it comes back", func(h *harness) {
			h.available("w2", false)
			h.ok(h.e.Book(h.step(), "t", "w2"))
			h.available("w2", true)
		}, map[string]string{"t": "pending:w2"}},
		{"an offer to someone else is taken back", func(h *harness) {
			res := h.ok(h.e.Book(h.step(), "t", "w2"))
			if res.PreviousWorkerID != "w1" {
				h.t.Errorf("PreviousWorkerID = %q, want w1", res.PreviousWorkerID)
			}
		}, map[string]string{"t": "pending:w2"}},
		{"a rejection by the booked worker leaves it queued", func(h *harness) {
			h.ok(h.e.Book(h.step(), "t", "w2"))
			h.reject("t", "w2")
		}, map[string]string{"t": "queued"}},
		{"released, it goes to the best worker again", func(h *harness) {
			h.available("w2", false)
			h.ok(h.e.Book(h.step(), "t", "w2"))
			h.ok(h.e.Unbook(h.step(), "t"))
		}, map[string]string{"t": "pending:w1"}},
		{"a freed worker skips a task booked for another", func(h *harness) {
			h.available("w2", false)
			h.ok(h.e.Book(h.step(), "t", "w2"))
			h.available("w1", false)
			h.available("w1", true)
		}, map[string]string{"t": "queued"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			h.worker("w1", "a")
			h.worker("w2", "a")
			h.task("t", "a") // offered to w1, the longest idle
			tc.run(h)
			if diff := cmp.Diff(tc.want, h.state()); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBookingRefusesFinishedWork(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("w1", "a")
	h.worker("w2", "a")
	h.task("t", "a")
	h.accept("t", "w1")
	var se *StateError
	if _, err := h.e.Book(h.step(), "t", "w2"); !errors.As(err, &se) || se.Reason != StateWrongStatus {
		t.Fatalf("booking a task accepted by another worker: %v, want a StateError", err)
	}
	if _, err := h.e.Book(h.step(), "t", "nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("booking for an unknown worker: %v, want ErrNotFound", err)
	}
}

// Candidates ignore the task's own booking and explain who cannot take it.
func TestBookingCandidates(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("w1", "a")
	h.worker("w2", "a")
	h.worker("w3", "b")
	h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
	h.ok(h.e.Book(h.step(), "t", "w2"))
	got, err := h.e.BookingCandidates("t", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var eligible []bool
	for _, c := range got {
		ids, eligible = append(ids, c.WorkerID), append(eligible, c.Eligible)
	}
	if diff := cmp.Diff([]string{"w2", "w1"}, ids); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, false}, eligible); diff != "" {
		t.Errorf("eligible (-want +got):\n%s", diff)
	}
}

// The limit caps the candidates: 1 answers the best one, 0 the default of 25.
func TestBookingCandidatesLimit(t *testing.T) {
	h := newHarness(t, Config{})
	for i := range 30 {
		h.worker(fmt.Sprintf("w%02d", i), "a")
	}
	h.task("t", "a")
	for _, tc := range []struct{ limit, want int }{{1, 1}, {2, 2}, {0, defaultMaxCandidates}, {101, 30}} {
		got, err := h.e.BookingCandidates("t", tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want {
			t.Errorf("BookingCandidates(limit %d): %d candidates, want %d", tc.limit, len(got), tc.want)
		}
	}
}
