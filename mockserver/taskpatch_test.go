package mockserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// tasks.update has patch semantics over the stored members: an absent member is left alone, a
// value replaces, null clears (title, description, context, references, meta). Each step
// below runs on the state the step before left; the members are read back through
// tasks.context.get and tasks.get.
func TestTaskUpdatePatchesStoredMembers(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{
		"id": "t1", "tags": []string{"x"}, "title": "A", "description": "D",
		"context": map[string]any{"a": 1}, "references": []any{map[string]any{"url": "https://x.example"}}, "meta": map[string]any{"k": 1},
	})
	mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{"id": "bare", "tags": []string{"x"}})

	type stored struct {
		Title, Description, Context, References, Meta string
	}
	read := func(id string) stored {
		var ctx struct {
			Title       *string         `json:"title"`
			Description *string         `json:"description"`
			Context     json.RawMessage `json:"context"`
			References  json.RawMessage `json:"references"`
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", "/tasks/"+id+"/context", nil).Body, &ctx))
		var task struct {
			Meta json.RawMessage `json:"meta"`
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", "/tasks/"+id, nil).Body, &task))
		str := func(p *string) string {
			if p == nil {
				return "<null>"
			}
			return *p
		}
		return stored{str(ctx.Title), str(ctx.Description), string(ctx.Context), string(ctx.References), string(task.Meta)}
	}
	refs := `[{"url":"https://x.example"}]`
	steps := []struct {
		name  string
		id    string
		patch map[string]any
		want  stored
	}{
		{"priority alone leaves every stored member", "t1", map[string]any{"priority": 2},
			stored{"A", "D", `{"a":1}`, refs, `{"k":1}`}},
		{"description and context replaced", "t1", map[string]any{"description": "D2", "context": map[string]any{"b": 2}},
			stored{"A", "D2", `{"b":2}`, refs, `{"k":1}`}},
		{"meta replaced", "t1", map[string]any{"meta": map[string]any{"m": 2}},
			stored{"A", "D2", `{"b":2}`, refs, `{"m":2}`}},
		{"title replaced", "t1", map[string]any{"title": "B"},
			stored{"B", "D2", `{"b":2}`, refs, `{"m":2}`}},
		{"null clears each", "t1", map[string]any{"title": nil, "description": nil, "context": nil, "references": nil, "meta": nil},
			stored{"<null>", "<null>", "null", "[]", "null"}},
		{"references on a task created without rich data", "bare", map[string]any{"references": []any{map[string]any{"url": "https://y.example"}}},
			stored{"<null>", "<null>", "null", `[{"url":"https://y.example"}]`, "null"}},
	}
	for _, st := range steps {
		mustAPI(t, srv, http.StatusOK, "PATCH", "/tasks/"+st.id, st.patch)
		if d := cmp.Diff(st.want, read(st.id)); d != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, d)
		}
	}
}
