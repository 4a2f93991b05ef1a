package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTimeEntryTimesGoCannotRead: the schema's date-time (RFC 3339) admits a lowercase t
// or z and a leap second, which the time entries' own reading (time.RFC3339Nano) refuses;
// such a time is a 400 naming the member, on create and on correction, before anything
// is looked up or changed.
func TestTimeEntryTimesGoCannotRead(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}})
	const (
		start, end = "2025-11-18T09:00:00.000Z", "2025-11-18T17:00:00.000Z"
		lower      = "2025-11-18t12:00:00z"
		leap       = "2025-11-18T23:59:60Z"
	)
	brk := func(s, e string) []any { return []any{map[string]any{"startedAt": s, "endedAt": e}} }
	create, patch := "/workers/agent_1/time-entries", "/workers/agent_1/time-entries/te_none"
	tests := []struct {
		name, method, path string
		body               map[string]any
		message            string
	}{
		{"create: startedAt", "POST", create, map[string]any{"startedAt": lower, "endedAt": end, "note": "paper"}, "body/startedAt must be an ISO-8601 time"},
		{"create: endedAt", "POST", create, map[string]any{"startedAt": start, "endedAt": leap, "note": "paper"}, "body/endedAt must be an ISO-8601 time"},
		{"create: a break's start", "POST", create, map[string]any{"startedAt": start, "endedAt": end, "note": "paper", "breaks": brk(lower, end)},
			"body/breaks/0/startedAt must be an ISO-8601 time"},
		{"create: a break's end", "POST", create, map[string]any{"startedAt": start, "endedAt": end, "note": "paper", "breaks": brk(start, lower)},
			"body/breaks/0/endedAt must be an ISO-8601 time"},
		{"correct: startedAt", "PATCH", patch, map[string]any{"note": "fix it", "startedAt": lower}, "body/startedAt must be an ISO-8601 time"},
		{"correct: endedAt", "PATCH", patch, map[string]any{"note": "fix it", "endedAt": leap}, "body/endedAt must be an ISO-8601 time"},
		{"correct: a break's start", "PATCH", patch, map[string]any{"note": "fix it", "breaks": brk(leap, end)}, "body/breaks/0/startedAt must be an ISO-8601 time"},
	}
	type refusal struct {
		Status        int
		Code, Message string
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := api(t, srv, tc.method, tc.path, tc.body)
			got := refusal{a.Status, a.errCode(t), a.errMessage(t)}
			if d := cmp.Diff(refusal{400, CodeValidationFailed, tc.message}, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
