package match

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Boundaries of the routing rules that only an exact test pins down: a worker just past a
// limit, the first instant a skill no longer counts, an address written as IPv4-mapped IPv6.

// TestRoutingBoundaries runs routeStory cases whose loser "a" sits exactly at, or just past,
// a rule's limit; winner "b" is eligible in every case.
func TestRoutingBoundaries(t *testing.T) {
	parisVersailles := DistanceKm(*paris, *versailles) // about 17 km
	tenNet := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	// routeStory's commands run at t0+1s (worker a), t0+2s (worker b), t0+3s (the task).
	taskAt := t0.Add(3 * time.Second)
	tests := []struct {
		name      string
		a, b      *WorkerRouting
		rt        *TaskRouting
		want      string
		wantLoser []Reason // worker a's failures and score parts; nil: none expected
	}{
		{
			name: "maxDistanceKm: a worker 1.13x the limit away is too far",
			a:    at(versailles, nil), b: at(paris, nil),
			rt:        &TaskRouting{Geo: paris, MaxDistanceKm: ptr(15.0)},
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonTooFar, Distance: parisVersailles, MaxDistance: 15}},
		},
		{
			name: "maxDistanceKm: a worker exactly at the limit is eligible",
			a:    at(versailles, nil), b: at(paris, nil),
			rt:   &TaskRouting{Geo: paris, MaxDistanceKm: ptr(parisVersailles)},
			want: "pending:a",
		},
		{
			name: "maxTravelDistanceKm: 1.13x the worker's own limit is too far",
			a:    at(versailles, ptr(15.0)), b: at(paris, ptr(15.0)),
			rt:        &TaskRouting{Geo: paris},
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonTooFar, Distance: parisVersailles, MaxDistance: 15}},
		},
		{
			name: "allowedCidrs: an IPv4-mapped IPv6 address is in its IPv4 range",
			a:    withIP("::ffff:10.0.0.5"), b: withIP("10.0.0.6"),
			rt:   &TaskRouting{AllowedCIDRs: tenNet},
			want: "pending:a",
		},
		{
			name: "allowedCidrs: an IPv4-mapped address outside the range is refused",
			a:    withIP("::ffff:192.0.2.5"), b: withIP("10.0.0.6"),
			rt:        &TaskRouting{AllowedCIDRs: tenNet},
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonIPNotAllowed}},
		},
		{
			name: "validUntil: the first instant the skill no longer counts",
			a:    skills(WorkerSkill{ID: "skl_es", Level: 5, ValidUntil: taskAt}),
			b:    skills(WorkerSkill{ID: "skl_es", Level: 1}),
			rt:   &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}}},
			want: "pending:b", wantLoser: []Reason{{Kind: ReasonSkillExpired, Skill: "skl_es"}},
		},
		{
			name: "validUntil: a nanosecond before it the skill still counts",
			a:    skills(WorkerSkill{ID: "skl_es", Level: 5, ValidUntil: taskAt.Add(time.Nanosecond)}),
			b:    skills(WorkerSkill{ID: "skl_es", Level: 1}),
			rt:   &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}}},
			want: "pending:a",
		},
		{
			name: "validUntil: with two required skills (the full scan) the boundary is the same",
			a:    skills(WorkerSkill{ID: "skl_es", Level: 5, ValidUntil: taskAt}, WorkerSkill{ID: "skl_fr", Level: 5}),
			b:    skills(WorkerSkill{ID: "skl_es", Level: 1}, WorkerSkill{ID: "skl_fr", Level: 1}),
			rt:   &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}, {ID: "skl_fr", MinLevel: 1}}},
			want: "pending:b",
			wantLoser: []Reason{{Kind: ReasonSkillExpired, Skill: "skl_es"},
				{Kind: ReasonSkillWeight, Skill: "skl_fr", Level: 5, Weight: 100}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			routeStory(tc.a, tc.b, tc.rt)(h)
			if got := h.state()["t1"]; got != tc.want {
				t.Fatalf("t1 is %s, want %s", got, tc.want)
			}
			if tc.wantLoser == nil {
				return
			}
			got := []Reason{}
			for _, c := range h.lastDecision("t1").Candidates {
				if c.WorkerID != "a" {
					continue
				}
				for _, r := range c.Reasons {
					if r.Kind != ReasonTagWeight {
						got = append(got, r)
					}
				}
			}
			if diff := cmp.Diff(tc.wantLoser, got); diff != "" {
				t.Errorf("worker a's reasons (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBookedForOtherIsExplained: a worker other than the booked one is shown ineligible with
// bookedForOther, in the decision that offers the task and in the unmatched explanation.
func TestBookedForOtherIsExplained(t *testing.T) {
	reasonsOf := func(cs []Candidate, worker string) []Reason {
		for _, c := range cs {
			if c.WorkerID == worker {
				return c.Reasons
			}
		}
		return nil
	}
	t.Run("unmatched explanation", func(t *testing.T) {
		h := newHarness(t, Config{})
		h.worker("w1", "a")
		h.worker("w2", "a")
		h.available("w2", false)
		h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}})
		h.ok(h.e.Book(h.step(), "t", "w2")) // taken back from w1; waits for w2
		un, err := h.e.WhyUnmatched("t", 5)
		if err != nil {
			t.Fatal(err)
		}
		var cs []Candidate
		for _, n := range un.Nearest {
			cs = append(cs, n.Candidate)
		}
		want := []Reason{{Kind: ReasonBookedForOther}, {Kind: ReasonTagWeight, Tag: "a", Weight: 1}}
		if diff := cmp.Diff(want, reasonsOf(cs, "w1")); diff != "" {
			t.Errorf("w1 in the unmatched explanation (-want +got):\n%s", diff)
		}
		for _, c := range cs {
			if c.WorkerID == "w1" && c.Eligible {
				t.Error("w1 shown eligible for a task booked for w2")
			}
		}
	})
	t.Run("decision", func(t *testing.T) {
		h := newHarness(t, Config{})
		h.worker("w1", "a")
		h.worker("w2", "a")
		h.available("w1", false)
		h.available("w2", false)
		h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}})
		h.ok(h.e.Book(h.step(), "t", "w2"))
		h.available("w2", true) // offered to w2; w1 is a waiting carrier in the decision
		want := []Reason{{Kind: ReasonUnavailable}, {Kind: ReasonBookedForOther}, {Kind: ReasonTagWeight, Tag: "a", Weight: 1}}
		if diff := cmp.Diff(want, reasonsOf(h.lastDecision("t").Candidates, "w1")); diff != "" {
			t.Errorf("w1 in the decision (-want +got):\n%s", diff)
		}
	})
}

// TestThresholdPlainWorker: a worker without routing weights carries each of its tags at
// weight 1, so a threshold of 1 is met and anything above is not, on the fast path
// (checkPlain) and on the explained one alike.
func TestThresholdPlainWorker(t *testing.T) {
	for _, tc := range []struct {
		min  float64
		want string
	}{{0.5, "pending:w1"}, {1, "pending:w1"}, {1.0000001, "queued"}, {2, "queued"}} {
		h := newHarness(t, Config{})
		h.worker("w1", "a", "b")
		h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": tc.min}})
		if got := h.state()["t"]; got != tc.want {
			t.Errorf("threshold %v: t is %s, want %s", tc.min, got, tc.want)
		}
		cands, err := h.e.SuggestWorkers(SuggestInput{Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": tc.min}})
		if err != nil {
			t.Fatal(err)
		}
		if wantOK := tc.want != "queued"; len(cands) != 1 || cands[0].Eligible != wantOK {
			t.Errorf("threshold %v: suggest says %+v, want eligible=%v", tc.min, cands, wantOK)
		}
	}
}

// TestScheduleBoundaries: the schedule's instants decide exactly, and Advance returns even
// when a rule makes work due at the instant it is reached (runWithin fails the test rather
// than hang if the clock loop never ends).
func TestScheduleBoundaries(t *testing.T) {
	worker := WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)}
	tests := []struct {
		name   string
		clocks *Clocks
		run    time.Duration // Advance to t0+run after creating at t0
		want   Status
		events []string // events of the creation and the Advance
	}{
		{"created exactly at notAfter: missed at once", &Clocks{NotAfter: t0}, 0, StatusExpired,
			[]string{"task.dropped t1 schedule"}},
		{"created a nanosecond before notAfter: offered", &Clocks{NotAfter: t0.Add(time.Nanosecond)}, 0, StatusPending,
			[]string{"task.matched t1"}},
		{"created exactly at notBefore: offered at once", &Clocks{NotBefore: t0}, 0, StatusPending,
			[]string{"task.matched t1"}},
		{"notBefore equals notAfter: queued and missed at the same instant", &Clocks{NotBefore: t0.Add(time.Minute), NotAfter: t0.Add(time.Minute)}, time.Minute, StatusExpired,
			[]string{"task.queued t1 schedule", "task.matched t1", "task.released t1 schedule", "task.dropped t1 schedule"}},
		{"shelf life ends at notBefore: the SLA wins", &Clocks{NotBefore: t0.Add(time.Minute), ExpireAfter: time.Minute}, time.Minute, StatusExpired,
			[]string{"task.dropped t1 sla"}},
		{"notAfter reached while offered", &Clocks{NotAfter: t0.Add(time.Second), OnMiss: ActionPark}, time.Second, StatusParked,
			[]string{"task.matched t1", "task.released t1 schedule", "task.parked t1 schedule"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newClockRun(t)
			r.ok(r.e.UpsertWorker(t0, worker))
			r.events = nil
			runWithin(t, 10*time.Second, func() {
				r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: tc.clocks})
				r.keep(r.e.Advance(t0.Add(tc.run)))
			})
			if got := r.status("t1"); got != tc.want {
				t.Errorf("t1 is %s, want %s", got, tc.want)
			}
			if diff := cmp.Diff(tc.events, r.events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// runWithin runs fn and fails the test if it has not returned after d (or by the test's
// own deadline): a clock loop that never ends shows up as a failure, not a hung run.
func runWithin(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	if dl, ok := t.Deadline(); ok && time.Until(dl)/2 < d {
		d = time.Until(dl) / 2
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("did not return within %v: a loop driven by the clock does not end", d)
	}
}
