package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// Restore names the member a state document's schema refused, with a reason per kind of
// fault, the member escaped as a JSON pointer (~0, ~1). Of several faults an unknown member
// comes first, a missing one last, and faults of one rank go by pointer.
func TestRestoreNamesTheSchemaFault(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}})
	saved, err := srv.Snapshot(context.Background())
	require.NoError(t, err)
	ws := func(m map[string]any) map[string]any { return m["workspaces"].([]any)[0].(map[string]any) }
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   StateError
	}{
		{"unknown member", func(m map[string]any) { ws(m)["a~b/c"] = 1 }, StateError{"/workspaces/0/a~0b~1c", "is not a member of a version 1 state"}},
		{"missing member", func(m map[string]any) { delete(m, "workspaces") }, StateError{"/workspaces", "is required"}},
		{"wrong type", func(m map[string]any) { ws(m)["workers"].([]any)[0].(map[string]any)["available"] = "yes" }, StateError{"/workspaces/0/workers/0/available", "must be boolean"}},
		{"const", func(m map[string]any) { m["kind"] = 5 }, StateError{"/kind", "must be taskrouting.mockserver.state"}},
		{"pattern", func(m map[string]any) { ws(m)["seed"] = "x" }, StateError{"/workspaces/0/seed", `must match "^[0-9]{1,20}$"`}},
		{"format", func(m map[string]any) { m["clock"] = "yesterday" }, StateError{"/clock", "must be a date-time"}},
		{"minimum", func(m map[string]any) { ws(m)["generation"] = -1 }, StateError{"/workspaces/0/generation", "is out of range"}},
		{"unknown before wrong type", func(m map[string]any) { m["clock"] = 5; ws(m)["zz"] = 1 }, StateError{"/workspaces/0/zz", "is not a member of a version 1 state"}},
		{"wrong type before missing", func(m map[string]any) { delete(m, "workspaces"); m["clock"] = 5 }, StateError{"/clock", "must be string"}},
		{"same rank by pointer", func(m map[string]any) { ws(m)["generation"] = "x"; m["clock"] = 5 }, StateError{"/clock", "must be string"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(saved, &m))
			tc.change(m)
			raw, err := json.Marshal(m)
			require.NoError(t, err)
			var se *StateError
			if err := Start(t).Restore(context.Background(), raw); !errors.As(err, &se) {
				t.Fatalf("Restore = %v, want a *StateError", err)
			}
			if d := cmp.Diff(tc.want, *se); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
