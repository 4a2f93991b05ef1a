package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRemovedWorkerAnswers pins what a removed worker may still do: finish (complete or
// fail) a task it accepted, and nothing else. An offer it held is no longer its to answer:
// under RulesPlatform the offer stays until it expires but an accept or reject, even by a
// new worker of the same id, is refused as not offered; under RulesEveryTag the offer went
// back to the queue, so the worker is unknown to it.
func TestRemovedWorkerAnswers(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			setup := func(t *testing.T) *harness {
				h := newHarness(t, Config{Rules: rules})
				h.worker("w1", "a")
				h.task("acc", "a")
				h.accept("acc", "w1")
				h.task("off", "a") // offered to w1
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
				return h
			}
			offerErr := func(op string) error {
				if rules == RulesPlatform {
					return &StateError{Op: op, TaskID: "off", WorkerID: "w1", Status: StatusPending, Reason: StateNotOfferedWorker}
				}
				return &NotFoundError{Kind: "worker", ID: "w1"}
			}
			type answer struct {
				name   string
				again  bool // a new worker w1 registered after the removal
				call   func(h *harness) (Result, error)
				want   error
				status map[string]Status
			}
			cases := []answer{
				{name: "complete what it accepted", call: func(h *harness) (Result, error) { return h.e.Complete(h.step(), "acc", "w1", "ok") },
					status: map[string]Status{"acc": StatusCompleted}},
				{name: "fail what it accepted", call: func(h *harness) (Result, error) { return h.e.Fail(h.step(), "acc", "w1", "gone") },
					status: map[string]Status{"acc": StatusFailed}},
				{name: "complete by an unknown worker", call: func(h *harness) (Result, error) { return h.e.Complete(h.step(), "acc", "w9", nil) },
					want: &NotFoundError{Kind: "worker", ID: "w9"}, status: map[string]Status{"acc": StatusAccepted}},
				{name: "accept the offer it held", call: func(h *harness) (Result, error) { return h.e.Accept(h.step(), "off", "w1") },
					want: offerErr("accept")},
				{name: "reject the offer it held", call: func(h *harness) (Result, error) { return h.e.Reject(h.step(), "off", "w1") },
					want: offerErr("reject")},
			}
			if rules == RulesPlatform {
				cases = append(cases, answer{name: "accept by a new worker of the same id", again: true,
					call: func(h *harness) (Result, error) { return h.e.Accept(h.step(), "off", "w1") }, want: offerErr("accept"),
					status: map[string]Status{"off": StatusPending}})
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					h := setup(t)
					if tc.again {
						h.workerIn(WorkerInput{ID: "w1", Tags: []string{"b"}, Available: ptr(true)})
					}
					_, err := tc.call(h)
					if diff := cmp.Diff(tc.want, err, cmp.Comparer(func(a, b error) bool {
						return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
					})); diff != "" {
						t.Errorf("error (-want +got):\n%s", diff)
					}
					for id, want := range tc.status {
						if got, _ := h.e.Task(id); got.Status != want {
							t.Errorf("%s: status %s, want %s", id, got.Status, want)
						}
					}
				})
			}
		})
	}
}

// TestNextDeadlineIsTheEarliest: NextDeadline is the earlier of the first offer expiry and
// the first task clock.
func TestNextDeadlineIsTheEarliest(t *testing.T) {
	cases := []struct {
		name   string
		sla    time.Duration
		worker bool
		want   time.Duration // after the task's creation
	}{
		{"the shelf life before the offer's expiry", 10 * time.Second, true, 10 * time.Second},
		{"the offer's expiry before the shelf life", time.Minute, true, 30 * time.Second},
		{"the shelf life alone", time.Minute, false, time.Minute},
		{"the offer's expiry alone", 0, true, 30 * time.Second},
	}
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		for _, tc := range cases {
			t.Run(string(rules)+"/"+tc.name, func(t *testing.T) {
				h := newHarness(t, Config{Rules: rules, OfferTimeout: 30 * time.Second})
				if tc.worker {
					h.worker("w1", "a")
				}
				in := TaskInput{ID: "t1", Tags: []string{"a"}}
				if tc.sla > 0 {
					in.Clocks = &Clocks{ExpireAfter: tc.sla}
				}
				h.taskIn(in)
				got, ok := h.e.NextDeadline()
				if !ok || !got.Equal(h.now.Add(tc.want)) {
					t.Errorf("NextDeadline %v %v, want %v", got, ok, h.now.Add(tc.want))
				}
			})
		}
	}
}
