package taskrouting

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Rule: a task's nested settings (escalation, SLA, schedule, slot, recurrence) are held to
// api/openapi.json's limits before sending, each refusal naming the field under
// CreateTaskParams and the first fault. Every branch of their validators.
func TestTaskSettingsRules(t *testing.T) {
	const in = "CreateTaskParams"
	ok := ParamError{}
	between := func(param, lo, hi string) ParamError {
		return ParamError{Param: in + param, Problem: "must be between " + lo + " and " + hi, Limit: true}
	}
	oneOf := func(param, allowed string) ParamError {
		return ParamError{Param: in + param, Problem: "must be one of " + allowed, Limit: true}
	}
	before1970 := func(param string) ParamError {
		return ParamError{Param: in + param, Problem: "must not be before 1970"}
	}
	intp := func(n int) *int { return &n }
	day, days90 := 24*time.Hour, 90*24*time.Hour
	esc := func(e Escalation) CreateTaskParams {
		if e.RespondWithin == 0 {
			e.RespondWithin = time.Minute
		}
		return CreateTaskParams{Tags: []string{"t"}, Escalation: Some(e)}
	}
	sla := func(s SLA) CreateTaskParams { return CreateTaskParams{Tags: []string{"t"}, SLA: Some(s)} }
	sched := func(s Schedule) CreateTaskParams { return CreateTaskParams{Tags: []string{"t"}, Schedule: &s} }
	slot := func(s TimeSlot) CreateTaskParams { return CreateTaskParams{Tags: []string{"t"}, Slot: &s} }
	tiers := func(n int) [][]string {
		out := make([][]string, n)
		for i := range out {
			out[i] = []string{"agent_1"}
		}
		return out
	}
	epoch := time.Unix(0, 0)
	for _, tc := range []struct {
		name string
		p    CreateTaskParams
		want ParamError
	}{
		{"escalation: respond within a second", esc(Escalation{RespondWithin: time.Second}), ok},
		{"escalation: respond within a day", esc(Escalation{RespondWithin: day}), ok},
		{"escalation: respond within 999 ms", esc(Escalation{RespondWithin: 999 * time.Millisecond}), between(".Escalation.RespondWithin", "1000", "86400000")},
		{"escalation: respond within a day and 1 ms", esc(Escalation{RespondWithin: day + time.Millisecond}), between(".Escalation.RespondWithin", "1000", "86400000")},
		{"escalation: no respond-within", CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{})}, between(".Escalation.RespondWithin", "1000", "86400000")},
		{"escalation: block and queue", esc(Escalation{OnNoResponse: "block", OnExhausted: "queue"}), ok},
		{"escalation: allow and park", esc(Escalation{OnNoResponse: "allow", OnExhausted: "park"}), ok},
		{"escalation: deny", esc(Escalation{OnNoResponse: "deny"}), oneOf(".Escalation.OnNoResponse", `"block", "allow"`)},
		{"escalation: exhausted drop", esc(Escalation{OnExhausted: "drop"}), oneOf(".Escalation.OnExhausted", `"queue", "park"`)},
		{"escalation: 8 tiers", esc(Escalation{Tiers: tiers(8)}), ok},
		{"escalation: 9 tiers", esc(Escalation{Tiers: tiers(9)}),
			ParamError{Param: in + ".Escalation.Tiers", Problem: "must have at most 8 items", Limit: true}},
		{"escalation: tiers given empty", esc(Escalation{Tiers: [][]string{}}), ParamError{Param: in + ".Escalation.Tiers", Problem: "must not be empty"}},
		{"escalation: an empty tier", esc(Escalation{Tiers: [][]string{{"a"}, {}}}), ParamError{Param: in + ".Escalation.Tiers[1]", Problem: "must not be empty"}},
		{"escalation: a tier of 33", esc(Escalation{Tiers: [][]string{strings.Split(strings.Repeat("w,", 32)+"w", ",")}}),
			ParamError{Param: in + ".Escalation.Tiers[0]", Problem: "must have at most 32 items", Limit: true}},
		{"escalation: an empty worker in a tier", esc(Escalation{Tiers: [][]string{{"a", ""}}}), ParamError{Param: in + ".Escalation.Tiers[0][1]", Problem: "must not be empty"}},
		{"escalation: 0 escalations", esc(Escalation{MaxEscalations: intp(0)}), ok},
		{"escalation: 8 escalations", esc(Escalation{MaxEscalations: intp(8)}), ok},
		{"escalation: 9 escalations", esc(Escalation{MaxEscalations: intp(9)}), between(".Escalation.MaxEscalations", "0", "8")},
		{"escalation: -1 escalations", esc(Escalation{MaxEscalations: intp(-1)}), between(".Escalation.MaxEscalations", "0", "8")},

		{"sla: nothing set", sla(SLA{}), ok},
		{"sla: expire after a second and 90 days to complete", sla(SLA{ExpireAfter: time.Second, CompleteWithin: days90}), ok},
		{"sla: expire after 999 ms", sla(SLA{ExpireAfter: 999 * time.Millisecond}), between(".SLA.ExpireAfter", "1000", "7776000000")},
		{"sla: expire after 90 days and 1 ms", sla(SLA{ExpireAfter: days90 + time.Millisecond}), between(".SLA.ExpireAfter", "1000", "7776000000")},
		{"sla: complete within 999 ms", sla(SLA{CompleteWithin: 999 * time.Millisecond}), between(".SLA.CompleteWithin", "1000", "7776000000")},
		{"sla: complete within 90 days and 1 ms", sla(SLA{CompleteWithin: days90 + time.Millisecond}), between(".SLA.CompleteWithin", "1000", "7776000000")},
		{"sla: 1 and 100 rejections", sla(SLA{MaxRejections: 1}), ok},
		{"sla: 100 rejections", sla(SLA{MaxRejections: 100}), ok},
		{"sla: 101 rejections", sla(SLA{MaxRejections: 101}), between(".SLA.MaxRejections", "1", "100")},
		{"sla: -1 rejections", sla(SLA{MaxRejections: -1}), between(".SLA.MaxRejections", "1", "100")},
		{"sla: every action", sla(SLA{OnExpire: "park", OnCompletionBreach: "requeue", OnMaxRejections: "keep"}), ok},
		{"sla: expire keep", sla(SLA{OnExpire: "keep"}), oneOf(".SLA.OnExpire", `"drop", "park"`)},
		{"sla: breach drop", sla(SLA{OnCompletionBreach: "drop"}), oneOf(".SLA.OnCompletionBreach", `"notify", "requeue", "fail", "park"`)},
		{"sla: rejections drop", sla(SLA{OnMaxRejections: "drop"}), oneOf(".SLA.OnMaxRejections", `"park", "fail", "keep"`)},
		{"sla: the duration's fault comes first", sla(SLA{ExpireAfter: time.Millisecond, OnExpire: "keep"}), between(".SLA.ExpireAfter", "1000", "7776000000")},

		{"schedule: 1970 on both ends", sched(Schedule{NotBefore: epoch, NotAfter: epoch, OnMiss: "drop"}), ok},
		{"schedule: not before 1 ms before 1970", sched(Schedule{NotBefore: epoch.Add(-time.Millisecond)}), before1970(".Schedule.NotBefore")},
		{"schedule: not after 1 ms before 1970", sched(Schedule{NotAfter: epoch.Add(-time.Millisecond)}), before1970(".Schedule.NotAfter")},
		{"schedule: miss keep", sched(Schedule{OnMiss: "keep"}), oneOf(".Schedule.OnMiss", `"park", "drop"`)},

		{"slot: at 1970 for 1 ms, booked a year ahead", slot(TimeSlot{StartAt: epoch, Duration: time.Millisecond, BookAhead: 365 * day, OnUnbooked: "park"}), ok},
		{"slot: no start", slot(TimeSlot{Duration: time.Hour}), ParamError{Param: in + ".Slot.StartAt", Problem: "must be set, not before 1970"}},
		{"slot: a start before 1970", slot(TimeSlot{StartAt: epoch.Add(-time.Millisecond), Duration: time.Hour}), ParamError{Param: in + ".Slot.StartAt", Problem: "must be set, not before 1970"}},
		{"slot: no duration", slot(TimeSlot{StartAt: t0}), between(".Slot.Duration", "1", "2592000000")},
		{"slot: 30 days and 1 ms", slot(TimeSlot{StartAt: t0, Duration: 30*day + time.Millisecond}), between(".Slot.Duration", "1", "2592000000")},
		{"slot: booked a year and 1 ms ahead", slot(TimeSlot{StartAt: t0, Duration: time.Hour, BookAhead: 365*day + time.Millisecond}), between(".Slot.BookAhead", "0", "31536000000")},
		{"slot: unbooked drop", slot(TimeSlot{StartAt: t0, Duration: time.Hour, OnUnbooked: "drop"}), oneOf(".Slot.OnUnbooked", `"queue", "park"`)},
		{"slot before recurrence", CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0}, Recurrence: &Recurrence{}}, between(".Slot.Duration", "1", "2592000000")},
		{"recurrence", CreateTaskParams{Tags: []string{"t"}, Recurrence: &Recurrence{}}, between(".Recurrence.Every", "1000", "31536000000")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got ParamError
			if err := tc.p.validate(); err != nil {
				var pe *ParamError
				require.True(t, errors.As(err, &pe), "got %v", err)
				got = *pe
			}
			diff(t, "refusal", tc.want, got)
		})
	}
}
