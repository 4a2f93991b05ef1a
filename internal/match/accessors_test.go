package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRulesValid: the rule sets an engine accepts are the two named ones and "" (the
// default); any other name, even one differing only in case, is not a rule set.
func TestRulesValid(t *testing.T) {
	got := map[Rules]bool{}
	for _, r := range []Rules{"", RulesPlatform, RulesEveryTag, "Platform", "any-tag", "every_tag", " "} {
		got[r] = r.Valid()
	}
	want := map[Rules]bool{"": true, RulesPlatform: true, RulesEveryTag: true, "Platform": false, "any-tag": false, "every_tag": false, " ": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Valid (-want +got):\n%s", diff)
	}
}

// TestDefaultMaxBacklogIsTheConfiguredCap: the cap of a worker without its own
// maxBacklogSize is Config.DefaultMaxBacklog, 9 (the platform's default) when that is not
// positive.
func TestDefaultMaxBacklogIsTheConfiguredCap(t *testing.T) {
	for _, tc := range []struct{ set, want int }{{0, 9}, {-1, 9}, {1, 1}, {40, 40}} {
		if got := New(Config{DefaultMaxBacklog: tc.set}).DefaultMaxBacklog(); got != tc.want {
			t.Errorf("DefaultMaxBacklog %d: got %d, want %d", tc.set, got, tc.want)
		}
	}
}

// TestTaskReadsOfTheAdapter pins the reads the mock server makes of a task without a full
// copy: TaskExtra (what the caller stored), BookedFor (the booked worker) and
// CreditedWorker (who a reward would go to, or the error Reward would give), for a known,
// an unknown and a forgotten task.
func TestTaskReadsOfTheAdapter(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules})
			h.worker("w1", "a")
			h.worker("w2", "b")
			h.taskIn(TaskInput{ID: "held", Tags: []string{"a"}, Extra: map[string]any{"title": "held"}})
			h.accept("held", "w1")
			h.taskIn(TaskInput{ID: "waiting", Tags: []string{"z"}, Extra: "plain"})
			h.ok(h.e.Book(h.step(), "waiting", "w2"))
			h.task("gone", "a")
			h.ok(h.e.CancelTask(h.step(), "gone"))
			h.task("offered", "b") // offered to w2
			h.task("done", "a")
			h.accept("done", "w1")
			h.complete("done", "w1")
			h.task("doneB", "b")
			h.accept("doneB", "w2")
			h.complete("doneB", "w2")
			h.ok(h.e.RemoveWorker(h.step(), "w1"))
			if n := h.e.Forget([]string{"gone"}); n != 1 {
				t.Fatalf("Forget: %d tasks forgotten, want 1", n)
			}

			type reads struct {
				Extra         any
				ExtraKnown    bool
				Booked        string
				BookedErr     error
				Credited      string
				CreditedErr   error
				RewardRefusal error
			}
			got := map[string]reads{}
			for _, id := range []string{"held", "waiting", "offered", "done", "doneB", "gone", "nope"} {
				var r reads
				r.Extra, r.ExtraKnown = h.e.TaskExtra(id)
				r.Booked, r.BookedErr = h.e.BookedFor(id)
				r.Credited, r.CreditedErr = h.e.CreditedWorker(id)
				_, r.RewardRefusal = h.e.Reward(h.step(), id, 0)
				got[id] = r
			}
			// w1 is removed: the tasks it held have nobody to credit.
			notFound := func(id string) error { return &NotFoundError{Kind: "task", ID: id} }
			wrong := func(id string, s Status) error {
				return &StateError{Op: "reward", TaskID: id, Status: s, Reason: StateWrongStatus}
			}
			want := map[string]reads{
				"held":    {Extra: map[string]any{"title": "held"}, ExtraKnown: true, CreditedErr: wrong("held", StatusAccepted), RewardRefusal: wrong("held", StatusAccepted)},
				"waiting": {Extra: "plain", ExtraKnown: true, Booked: "w2", CreditedErr: wrong("waiting", StatusQueued), RewardRefusal: wrong("waiting", StatusQueued)},
				"offered": {ExtraKnown: true, Credited: "w2"},
				"done":    {ExtraKnown: true, CreditedErr: wrong("done", StatusCompleted), RewardRefusal: wrong("done", StatusCompleted)},
				"doneB":   {ExtraKnown: true, Credited: "w2"},
				"gone":    {BookedErr: notFound("gone"), CreditedErr: notFound("gone"), RewardRefusal: notFound("gone")},
				"nope":    {BookedErr: notFound("nope"), CreditedErr: notFound("nope"), RewardRefusal: notFound("nope")},
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool {
				return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
			})); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDueDeadlinesCountsOffersDueByThen: DueDeadlines counts the offers whose expiry is at
// or before the time asked, and none once Advance has fired them.
func TestDueDeadlinesCountsOffersDueByThen(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules, OfferTimeout: 10 * time.Second})
			h.worker("w1", "a")
			h.task("t1", "a") // offered at t0+2s: expires at t0+12s
			h.task("t2", "a") // offered at t0+3s: expires at t0+13s
			first := h.now.Add(-time.Second).Add(10 * time.Second)
			got := []int{}
			for _, at := range []time.Time{h.now, first.Add(-time.Nanosecond), first, first.Add(time.Second), first.Add(time.Hour)} {
				got = append(got, h.e.DueDeadlines(at))
			}
			if diff := cmp.Diff([]int{0, 0, 1, 2, 2}, got); diff != "" {
				t.Errorf("due (-want +got):\n%s", diff)
			}
			h.e.Advance(first)
			if n := h.e.DueDeadlines(first); n != 0 {
				t.Errorf("after Advance: %d due, want 0", n)
			}
		})
	}
}
