package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestClockEdges pins what a task's clocks do at their edges (docs/contract.md, the SLA,
// schedule and escalation rows): two clocks due at one instant (the shelf life wins), a
// window that is closed or open when the task is made, a window of one instant, the
// default actions, a cap of no escalation at all, a ladder that queues at its end, and an
// unpark while a clock is over. Each case lists every event from the task's creation on
// and the task's last status.
func TestClockEdges(t *testing.T) {
	min := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	cases := []struct {
		name   string
		play   func(r *clockRun)
		want   []string
		status Status
	}{
		{
			name: "shelf life and window end at one instant: the shelf life's action",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: time.Minute, OnExpire: ActionPark, NotAfter: min(1)}})
				r.keep(r.e.Advance(min(1)))
			},
			want:   []string{"task.parked t1 sla"},
			status: StatusParked,
		},
		{
			name: "window end and shelf life at one instant, the other way round",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: time.Minute, NotAfter: min(1), OnMiss: ActionPark}})
				r.keep(r.e.Advance(min(1)))
			},
			want:   []string{"task.dropped t1 sla"},
			status: StatusExpired,
		},
		{
			name: "a scheduled task's shelf life ends as its window opens",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: time.Minute, NotBefore: min(1)}})
				r.keep(r.e.Advance(min(1)))
			},
			want:   []string{"task.dropped t1 sla"},
			status: StatusExpired,
		},
		{
			name: "a scheduled task's window opens before its shelf life ends",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: 2 * time.Minute, NotBefore: min(1)}})
				r.keep(r.e.Advance(min(1)))
				r.keep(r.e.Advance(min(2)))
			},
			want:   []string{"task.queued t1 schedule", "task.dropped t1 sla"},
			status: StatusExpired,
		},
		{
			name: "a window that ends as the task is made: missed at once",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{NotAfter: t0, OnMiss: ActionPark}})
			},
			want:   []string{"task.parked t1 schedule"},
			status: StatusParked,
		},
		{
			name: "a window that opens as the task is made: queued and offered at once",
			play: func(r *clockRun) {
				r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)}))
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{NotBefore: t0, NotAfter: min(1)}})
			},
			want:   []string{"task.matched t1"},
			status: StatusPending,
		},
		{
			name: "a window of one instant: queued and missed",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{NotBefore: min(1), NotAfter: min(1)}})
				r.keep(r.e.Advance(min(1)))
			},
			want:   []string{"task.queued t1 schedule", "task.dropped t1 schedule"},
			status: StatusExpired,
		},
		{
			name: "the rejection budget parks by default",
			play: func(r *clockRun) {
				r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)}))
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{MaxRejections: 1}})
				r.ok(r.e.Reject(t0, "t1", "w1"))
			},
			want:   []string{"task.matched t1", "task.rejected t1", "task.parked t1 maxRejections"},
			status: StatusParked,
		},
		{
			name: "no escalation allowed: the first step parks",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{MaxEscalations: ptr(0)}})
				er, err := r.e.Escalate(min(1), "t1", "")
				r.ok(er.Result, err)
				if er.Escalated || !er.Parked || er.Level != 0 {
					r.t.Errorf("escalate: %+v", er)
				}
			},
			want:   []string{"task.parked t1 escalation"},
			status: StatusParked,
		},
		{
			name: "a ladder that queues at its end",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{MaxEscalations: ptr(0)}})
				r.create(TaskInput{ID: "t2", Tags: []string{"a"}, Priority: 1, Clocks: &Clocks{MaxEscalations: ptr(1), OnExhausted: ActionQueue, PriorityBoost: 2}})
				for i := 0; i < 2; i++ {
					er, err := r.e.Escalate(min(1), "t2", "")
					r.ok(er.Result, err)
					if er.Escalated != (i == 0) || er.Parked || er.Level != 1 {
						r.t.Errorf("escalate %d: %+v", i+1, er)
					}
				}
				tk, _ := r.e.Task("t2")
				if tk.Priority != 3 {
					r.t.Errorf("priority %v, want 3 (one step of 2)", tk.Priority)
				}
				r.ok(r.e.CancelTask(min(1), "t1"))
			},
			want:   []string{"task.escalated t2 level=1", "task.cancelled t1"},
			status: StatusCancelled,
		},
		{
			name: "an unpark after the shelf life: parked again at once",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{MaxEscalations: ptr(0)}})
				r.create(TaskInput{ID: "t2", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: time.Minute, OnExpire: ActionPark}})
				r.keep(r.e.Advance(min(1)))
				r.ok(r.e.Unpark(min(2), "t2", UnparkOptions{ResetEscalation: true, ResetSchedule: true}))
				r.ok(r.e.CancelTask(min(2), "t1"))
			},
			want:   []string{"task.parked t2 sla", "task.unparked t2", "task.parked t2 sla", "task.cancelled t1"},
			status: StatusCancelled,
		},
		{
			name: "an unpark at the instant the shelf life ends: it runs out at once",
			play: func(r *clockRun) {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: time.Minute, MaxEscalations: ptr(0)}})
				er, err := r.e.Escalate(t0, "t1", "")
				r.ok(er.Result, err)
				r.ok(r.e.Unpark(min(1), "t1", UnparkOptions{}))
			},
			want:   []string{"task.parked t1 escalation", "task.unparked t1", "task.dropped t1 sla"},
			status: StatusExpired,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newClockRun(t)
			tc.play(r)
			if diff := cmp.Diff(tc.want, r.events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if got := r.status("t1"); got != tc.status {
				t.Errorf("status %s, want %s", got, tc.status)
			}
		})
	}
}
