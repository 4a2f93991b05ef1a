package match

import (
	"errors"
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTaskInputRules pins every rule CreateTask checks its input against: each bad value is
// refused as *InputError naming the field and the rule, and creates nothing; each value at
// the edge of a rule is accepted.
func TestTaskInputRules(t *testing.T) {
	long := strings.Repeat("x", 129)
	bad := func(field, reason string) *InputError { return &InputError{Field: field, Reason: reason} }
	at := t0.Add(time.Hour)
	cases := []struct {
		name string
		in   TaskInput // ID "t" and Tags ["a"] unless set
		want *InputError
	}{
		{name: "empty id", in: TaskInput{ID: "-"}, want: bad("id", "must not be empty")},
		{name: "id of 129 bytes", in: TaskInput{ID: long}, want: bad("id", "longer than 128 characters")},
		{name: "id of 128 bytes", in: TaskInput{ID: long[:128]}},
		{name: "no tags", in: TaskInput{Tags: []string{}}, want: bad("tags", "at least one tag is required")},
		{name: "an empty tag", in: TaskInput{Tags: []string{"a", ""}}, want: bad("tags", "a tag must not be empty")},
		{name: "NaN priority", in: TaskInput{Priority: math.NaN()}, want: bad("priority", "must be a finite number")},
		{name: "infinite priority", in: TaskInput{Priority: math.Inf(1)}, want: bad("priority", "must be a finite number")},
		{name: "minus infinite priority", in: TaskInput{Priority: math.Inf(-1)}, want: bad("priority", "must be a finite number")},
		{name: "most negative finite priority", in: TaskInput{Priority: -math.MaxFloat64}},
		{name: "threshold of an empty tag", in: TaskInput{SkillThresholds: map[string]float64{"": 1}}, want: bad("skillThresholds", "a tag must not be empty")},
		{name: "NaN threshold", in: TaskInput{SkillThresholds: map[string]float64{"a": math.NaN()}}, want: bad("skillThresholds", "must be finite numbers")},
		{name: "infinite threshold", in: TaskInput{SkillThresholds: map[string]float64{"a": math.Inf(1)}}, want: bad("skillThresholds", "must be finite numbers")},
		{name: "minus infinite threshold", in: TaskInput{SkillThresholds: map[string]float64{"a": math.Inf(-1)}}, want: bad("skillThresholds", "must be finite numbers")},
		{name: "negative threshold", in: TaskInput{SkillThresholds: map[string]float64{"a": -2}}},

		{name: "required skill without id", in: TaskInput{Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: 1}, {MinLevel: 1}}}}, want: bad("requiredSkills", "a skill id must not be empty")},
		{name: "min level 0", in: TaskInput{Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: 0}}}}, want: bad("requiredSkills", "minLevel must be 1-5")},
		{name: "min level 6", in: TaskInput{Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: 6}}}}, want: bad("requiredSkills", "minLevel must be 1-5")},
		{name: "min levels 1 and 5", in: TaskInput{Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: 1}, {ID: "u", MinLevel: 5}}}}},
		{name: "latitude above 90", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lat: 90.5}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "latitude below -90", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lat: -90.5}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "longitude above 180", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lng: 180.5}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "longitude below -180", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lng: -180.5}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "NaN latitude", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lat: math.NaN()}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "NaN longitude", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lng: math.NaN()}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "north-east corner", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lat: 90, Lng: 180}}}},
		{name: "south-west corner", in: TaskInput{Routing: &TaskRouting{Geo: &GeoPoint{Lat: -90, Lng: -180}}}},
		{name: "negative distance", in: TaskInput{Routing: &TaskRouting{MaxDistanceKm: ptr(-0.5)}}, want: bad("maxDistanceKm", "must be a number >= 0")},
		{name: "NaN distance", in: TaskInput{Routing: &TaskRouting{MaxDistanceKm: ptr(math.NaN())}}, want: bad("maxDistanceKm", "must be a number >= 0")},
		{name: "distance 0", in: TaskInput{Routing: &TaskRouting{MaxDistanceKm: ptr(0.0)}}},
		{name: "invalid prefix", in: TaskInput{Routing: &TaskRouting{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), {}}}}, want: bad("allowedCidrs", "must be valid prefixes")},
		{name: "valid prefixes", in: TaskInput{Routing: &TaskRouting{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}}}},

		{name: "negative shelf life", in: TaskInput{Clocks: &Clocks{ExpireAfter: -time.Millisecond}}, want: bad("sla.expireAfter", "must not be negative")},
		{name: "negative rejection budget", in: TaskInput{Clocks: &Clocks{MaxRejections: -1}}, want: bad("sla.maxRejections", "must not be negative")},
		{name: "negative escalation cap", in: TaskInput{Clocks: &Clocks{MaxEscalations: ptr(-1)}}, want: bad("escalation.maxEscalations", "must not be negative")},
		{name: "escalation cap 0", in: TaskInput{Clocks: &Clocks{MaxEscalations: ptr(0)}}},
		{name: "window ending before it starts", in: TaskInput{Clocks: &Clocks{NotBefore: at, NotAfter: at.Add(-time.Millisecond)}}, want: bad("schedule.notAfter", "must not be before notBefore")},
		{name: "window of one instant", in: TaskInput{Clocks: &Clocks{NotBefore: at, NotAfter: at}}},
		{name: "window end alone, in the past", in: TaskInput{Clocks: &Clocks{NotAfter: t0.Add(-time.Hour)}}},
		{name: "window start alone", in: TaskInput{Clocks: &Clocks{NotBefore: at}}},
		{name: "expiry that fails", in: TaskInput{Clocks: &Clocks{OnExpire: ActionFail}}, want: bad("sla.onExpire", "is not one of the allowed actions")},
		{name: "expiry that parks", in: TaskInput{Clocks: &Clocks{OnExpire: ActionPark}}},
		{name: "expiry that drops", in: TaskInput{Clocks: &Clocks{OnExpire: ActionDrop}}},
		{name: "rejections that drop", in: TaskInput{Clocks: &Clocks{OnMaxRejections: ActionDrop}}, want: bad("sla.onMaxRejections", "is not one of the allowed actions")},
		{name: "rejections that park", in: TaskInput{Clocks: &Clocks{OnMaxRejections: ActionPark}}},
		{name: "rejections that fail", in: TaskInput{Clocks: &Clocks{OnMaxRejections: ActionFail}}},
		{name: "rejections that keep", in: TaskInput{Clocks: &Clocks{OnMaxRejections: ActionKeep}}},
		{name: "a miss that queues", in: TaskInput{Clocks: &Clocks{OnMiss: ActionQueue}}, want: bad("schedule.onMiss", "is not one of the allowed actions")},
		{name: "a miss that parks", in: TaskInput{Clocks: &Clocks{OnMiss: ActionPark}}},
		{name: "a miss that drops", in: TaskInput{Clocks: &Clocks{OnMiss: ActionDrop}}},
		{name: "a ladder's end that drops", in: TaskInput{Clocks: &Clocks{OnExhausted: ActionDrop}}, want: bad("escalation.onExhausted", "is not one of the allowed actions")},
		{name: "a ladder's end that parks", in: TaskInput{Clocks: &Clocks{OnExhausted: ActionPark}}},
		{name: "a ladder's end that queues", in: TaskInput{Clocks: &Clocks{OnExhausted: ActionQueue}}},

		{name: "negative response time", in: TaskInput{Escalation: &Escalation{RespondWithin: -time.Millisecond}}, want: bad("escalation.respondWithin", "must not be negative")},
		{name: "response time 0", in: TaskInput{Escalation: &Escalation{RespondWithin: 0}}},
		{name: "unknown silence rule", in: TaskInput{Escalation: &Escalation{OnNoResponse: "maybe"}}, want: bad("escalation.onNoResponse", "must be allow or block")},
		{name: "silence allowed", in: TaskInput{Escalation: &Escalation{OnNoResponse: NoResponseAllow}}},
		{name: "silence blocks", in: TaskInput{Escalation: &Escalation{OnNoResponse: NoResponseBlock}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			switch in.ID {
			case "":
				in.ID = "t"
			case "-":
				in.ID = ""
			}
			if in.Tags == nil {
				in.Tags = []string{"a"}
			}
			e := New(Config{})
			e.Advance(t0)
			accepted := checkRefusal(t, e, "task", tc.want, func() error {
				_, err := e.CreateTask(t0, in)
				return err
			})
			if accepted {
				if _, err := e.Task(in.ID); err != nil {
					t.Errorf("accepted task not readable: %v", err)
				}
			}
		})
	}
}

// TestWorkerInputRules pins every rule UpsertWorker, PatchWorker and SetWorkerRouting check
// a worker's input against: each bad value is refused as *InputError naming the field and
// the rule, and changes nothing; each value at the edge of a rule is accepted.
func TestWorkerInputRules(t *testing.T) {
	long := strings.Repeat("x", 129)
	bad := func(field, reason string) *InputError { return &InputError{Field: field, Reason: reason} }
	skill := func(id string, level int) *WorkerRouting {
		return &WorkerRouting{Skills: []WorkerSkill{{ID: "s", Level: 3}, {ID: id, Level: level}}}
	}
	cases := []struct {
		name string
		in   WorkerInput // ID "w" unless set; "-" is the empty id
		want *InputError
	}{
		{name: "empty id", in: WorkerInput{ID: "-"}, want: bad("id", "must not be empty")},
		{name: "id of 129 bytes", in: WorkerInput{ID: long}, want: bad("id", "longer than 128 characters")},
		{name: "id of 128 bytes", in: WorkerInput{ID: long[:128]}},
		{name: "an empty tag", in: WorkerInput{Tags: []string{"a", ""}}, want: bad("tags", "a tag must not be empty")},
		{name: "no tags", in: WorkerInput{Tags: []string{}}},
		{name: "weight of an empty key", in: WorkerInput{RoutingWeights: map[string]float64{"": 1}}, want: bad("routingWeights", "a key must not be empty")},
		{name: "negative weight", in: WorkerInput{RoutingWeights: map[string]float64{"a": -0.5}}, want: bad("routingWeights", "weights must be finite and >= 0")},
		{name: "NaN weight", in: WorkerInput{RoutingWeights: map[string]float64{"a": math.NaN()}}, want: bad("routingWeights", "weights must be finite and >= 0")},
		{name: "infinite weight", in: WorkerInput{RoutingWeights: map[string]float64{"a": math.Inf(1)}}, want: bad("routingWeights", "weights must be finite and >= 0")},
		{name: "weight 0", in: WorkerInput{RoutingWeights: map[string]float64{"a": 0, "b*": 2}}},
		{name: "negative cap", in: WorkerInput{MaxBacklogSize: ptr(-1)}, want: bad("maxBacklogSize", "must be >= 0")},
		{name: "cap 0", in: WorkerInput{MaxBacklogSize: ptr(0)}},

		{name: "skill without id", in: WorkerInput{Routing: skill("", 1)}, want: bad("skills", "a skill id must not be empty")},
		{name: "skill level 0", in: WorkerInput{Routing: skill("u", 0)}, want: bad("skills", "level must be 1-5")},
		{name: "skill level 6", in: WorkerInput{Routing: skill("u", 6)}, want: bad("skills", "level must be 1-5")},
		{name: "skill level 1", in: WorkerInput{Routing: skill("u", 1)}},
		{name: "skill level 5", in: WorkerInput{Routing: skill("u", 5)}},
		{name: "latitude above 90", in: WorkerInput{Routing: &WorkerRouting{Geo: &GeoPoint{Lat: 90.5}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "longitude below -180", in: WorkerInput{Routing: &WorkerRouting{Geo: &GeoPoint{Lng: -180.5}}}, want: bad("latitude", "must be a location in degrees")},
		{name: "north-west corner", in: WorkerInput{Routing: &WorkerRouting{Geo: &GeoPoint{Lat: 90, Lng: -180}}}},
		{name: "negative travel", in: WorkerInput{Routing: &WorkerRouting{MaxTravelKm: ptr(-0.5)}}, want: bad("maxTravelDistanceKm", "must be a number >= 0")},
		{name: "NaN travel", in: WorkerInput{Routing: &WorkerRouting{MaxTravelKm: ptr(math.NaN())}}, want: bad("maxTravelDistanceKm", "must be a number >= 0")},
		{name: "travel 0", in: WorkerInput{Routing: &WorkerRouting{MaxTravelKm: ptr(0.0)}}},
	}
	for _, tc := range cases {
		in := tc.in
		switch in.ID {
		case "":
			in.ID = "w"
		case "-":
			in.ID = ""
		}
		t.Run("create/"+tc.name, func(t *testing.T) {
			e := New(Config{})
			e.Advance(t0)
			checkRefusal(t, e, "worker", tc.want, func() error {
				_, err := e.UpsertWorker(t0, in)
				return err
			})
		})
		if tc.in.ID != "" {
			continue // the id rules are UpsertWorker's alone
		}
		// An existing worker's update follows the same rules, and a refused one keeps it as
		// it was.
		update := map[string]func(e *Engine) error{
			"patch": func(e *Engine) error { _, err := e.PatchWorker(t0, "w", in); return err },
			"upsert": func(e *Engine) error {
				_, err := e.UpsertWorker(t0, in)
				return err
			},
		}
		if in.Routing != nil {
			update["routing"] = func(e *Engine) error { _, err := e.SetWorkerRouting(t0, "w", in.Routing); return err }
		}
		for _, op := range []string{"patch", "upsert", "routing"} {
			call, ok := update[op]
			if !ok {
				continue
			}
			t.Run(op+"/"+tc.name, func(t *testing.T) {
				e := New(Config{})
				orig := WorkerInput{ID: "w", Tags: []string{"a"}, RoutingWeights: map[string]float64{"a": 2}, MaxBacklogSize: ptr(3),
					Available: ptr(true), Routing: &WorkerRouting{Skills: []WorkerSkill{{ID: "s", Level: 2}}, MaxTravelKm: ptr(5.0)}}
				if _, err := e.UpsertWorker(t0, orig); err != nil {
					t.Fatal(err)
				}
				checkRefusal(t, e, "update", tc.want, func() error { return call(e) })
			})
		}
	}
}

// checkRefusal runs a command on e: with want nil it must be accepted (and checkRefusal
// answers true); otherwise it must be refused with want, leaving e's state as it was.
func checkRefusal(t *testing.T, e *Engine, what string, want *InputError, run func() error) bool {
	t.Helper()
	before := e.State()
	err := run()
	if want == nil {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return true
	}
	checkInputError(t, err, want)
	if diff := cmp.Diff(before, e.State(), netipEqual); diff != "" {
		t.Errorf("a refused %s changed the engine (-before +after):\n%s", what, diff)
	}
	return false
}

func checkInputError(t *testing.T, err error, want *InputError) {
	t.Helper()
	var got *InputError
	if !errors.As(err, &got) || !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("error %v, want %v", err, want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("input error (-want +got):\n%s", diff)
	}
	if msg := "match: invalid " + want.Field + ": " + want.Reason; err.Error() != msg {
		t.Errorf("message %q, want %q", err.Error(), msg)
	}
}

// netipEqual compares addresses and prefixes, whose fields are unexported, by value.
var netipEqual = cmp.Options{
	cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
	cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
}
