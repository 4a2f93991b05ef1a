package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestTimeEntryCorrectionRules walks one worker's record through the corrections an operator
// makes (docs/contract.md, "Worker time"), in order: each step's status, and for a refusal the
// message, for a change the entry as answered. A shift's start moves with startedAt, a break
// takes no shift members, a shift cannot be moved onto another or to end before it starts, a
// closed shift holds no open break, a created shift's breaks are new, and reopening
// a shift clears its end reason while ending it again makes it "manual".
func TestTimeEntryCorrectionRules(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "desk 4", "pin": "4921"})
	entryOf := func(a answer) correctedEntryJSON {
		t.Helper()
		var res correctionResult
		require.NoError(t, json.Unmarshal(a.Body, &res), "%s", a.Body)
		return res.Entry
	}
	first := entryOf(mustAPI(t, srv, 201, "POST", "/workers/agent_1/time-entries", map[string]any{
		"startedAt": "2025-11-19T09:00:00.000Z", "endedAt": "2025-11-19T17:00:00.000Z", "note": "paper timesheet"}))
	created := mustAPI(t, srv, 201, "POST", "/workers/agent_1/time-entries", map[string]any{
		"startedAt": "2025-11-20T09:00:00.000Z", "endedAt": "2025-11-20T17:00:00.000Z", "note": "paper timesheet",
		"breaks": []any{map[string]any{"startedAt": "2025-11-20T12:00:00.000Z", "endedAt": "2025-11-20T12:30:00.000Z"}}})
	var res correctionResult
	require.NoError(t, json.Unmarshal(created.Body, &res))
	require.NotNil(t, res.Breaks)
	require.Len(t, *res.Breaks, 1)
	shift, brk := res.Entry.ID, (*res.Breaks)[0].ID

	str := func(s string) *string { return &s }
	manual := str("manual")
	shiftAt := func(start string, end *string, reason *string, task *string) *correctedEntryJSON {
		return &correctedEntryJSON{ID: shift, Type: "shift", StartedAt: start, EndedAt: end, Corrected: true, Source: str("operator"),
			EndReason: reason, TaskID: task}
	}
	steps := []struct {
		name, method, path string
		body               map[string]any
		status             int
		message            string              // of a refusal
		entry              *correctedEntryJSON // of a change
	}{
		{"a new shift's break carries no id", "POST", "/workers/agent_1/time-entries", map[string]any{
			"startedAt": "2025-11-18T09:00:00.000Z", "endedAt": "2025-11-18T17:00:00.000Z", "note": "paper timesheet",
			"breaks": []any{map[string]any{"id": brk, "startedAt": "2025-11-18T12:00:00.000Z", "endedAt": "2025-11-18T12:30:00.000Z"}}},
			400, "body/breaks/0/id: the breaks of a new shift are new and carry no id", nil},
		{"startedAt moves the shift's start", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "came in early", "startedAt": "2025-11-20T08:00:00.000Z"},
			200, "", shiftAt("2025-11-20T08:00:00.000Z", str("2025-11-20T17:00:00.000Z"), manual, nil)},
		{"a start after the end", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "typo", "startedAt": "2025-11-20T18:00:00.000Z"},
			400, "body/endedAt must be after body/startedAt", nil},
		{"a start at the end", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "typo", "startedAt": "2025-11-20T17:00:00.000Z"},
			400, "body/endedAt must be after body/startedAt", nil},
		{"a start onto the shift before", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "typo", "startedAt": "2025-11-19T16:00:00.000Z"},
			409, "the shift would overlap shift " + first.ID, nil},
		{"a break takes no description", "PATCH", "/workers/agent_1/time-entries/" + brk,
			map[string]any{"note": "typo", "description": "lunch"},
			400, "description, taskId and breaks belong to shifts; " + brk + " is a break", nil},
		{"a closed shift holds no open break", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "typo", "breaks": []any{map[string]any{"id": brk, "startedAt": "2025-11-20T12:00:00.000Z", "endedAt": nil}}},
			400, "body/breaks/0: only an open shift can hold an open break, and only one", nil},
		{"taskId links the shift", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "worked on it", "taskId": "task_9"},
			200, "", shiftAt("2025-11-20T08:00:00.000Z", str("2025-11-20T17:00:00.000Z"), manual, str("task_9"))},
		{"reopening clears the end reason", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "still here", "endedAt": nil},
			200, "", shiftAt("2025-11-20T08:00:00.000Z", nil, nil, str("task_9"))},
		{"ending it again is manual", "PATCH", "/workers/agent_1/time-entries/" + shift,
			map[string]any{"note": "left", "endedAt": "2025-11-20T18:00:00.000Z"},
			200, "", shiftAt("2025-11-20T08:00:00.000Z", str("2025-11-20T18:00:00.000Z"), manual, str("task_9"))},
	}
	for _, st := range steps {
		a := api(t, srv, st.method, st.path, st.body)
		if !cmp.Equal(st.status, a.Status) {
			t.Fatalf("%s: status %d, want %d: %s", st.name, a.Status, st.status, a.Body)
		}
		if st.entry == nil {
			var env struct{ Error struct{ Message string } }
			require.NoError(t, json.Unmarshal(a.Body, &env))
			if diff := cmp.Diff(st.message, env.Error.Message); diff != "" {
				t.Errorf("%s: message (-want +got):\n%s", st.name, diff)
			}
			continue
		}
		if diff := cmp.Diff(*st.entry, entryOf(a)); diff != "" {
			t.Errorf("%s: entry (-want +got):\n%s", st.name, diff)
		}
	}
}
