package taskrouting_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// bodyCatcher answers 202 and keeps the last body it was sent.
func bodyCatcher(t *testing.T) (*taskrouting.Client, func() map[string]any) {
	t.Helper()
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case <-bodies:
		default:
		}
		bodies <- b
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"id":"t1","status":"pending"}`)
	}))
	t.Cleanup(srv.Close)
	c, err := taskrouting.NewClient(srv.URL, "sk_test_jsonset")
	if err != nil {
		t.Fatal(err)
	}
	return c, func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal(<-bodies, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
}

func TestWithJSONSetSetsBodyMembers(t *testing.T) {
	c, lastBody := bodyCatcher(t)
	params := taskrouting.CreateTaskParams{
		Tags:           []string{"english"},
		Priority:       2,
		Meta:           map[string]any{"keep": true},
		RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "billing", MinLevel: 1}},
	}
	tests := []struct {
		name string
		sets []taskrouting.RequestOption
		want map[string]any
	}{
		{"new top-level member", []taskrouting.RequestOption{taskrouting.WithJSONSet("newMember", "x")},
			map[string]any{"newMember": "x"}},
		{"into an existing object", []taskrouting.RequestOption{taskrouting.WithJSONSet("meta.source", "crm")},
			map[string]any{"meta": map[string]any{"keep": true, "source": "crm"}}},
		{"objects created on the way", []taskrouting.RequestOption{taskrouting.WithJSONSet("a.b.c", 1)},
			map[string]any{"a": map[string]any{"b": map[string]any{"c": 1.0}}}},
		{"replaces what params set, later wins", []taskrouting.RequestOption{
			taskrouting.WithJSONSet("priority", 5), taskrouting.WithJSONSet("priority", 7)},
			map[string]any{"priority": 7.0}},
		{"array element", []taskrouting.RequestOption{taskrouting.WithJSONSet("requiredSkills.0.minLevel", 3)},
			map[string]any{"requiredSkills": []any{map[string]any{"skillId": "billing", "minLevel": 3.0}}}},
		{"escaped dot", []taskrouting.RequestOption{taskrouting.WithJSONSet(`meta.a\.b`, json.RawMessage(`[1]`))},
			map[string]any{"meta": map[string]any{"keep": true, "a.b": []any{1.0}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Tasks.Create(context.Background(), params, tt.sets...); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"tags": []any{"english"}, "priority": 2.0, "meta": map[string]any{"keep": true},
				"requiredSkills": []any{map[string]any{"skillId": "billing", "minLevel": 1.0}}}
			for k, v := range tt.want {
				want[k] = v
			}
			if diff := cmp.Diff(want, lastBody()); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWithJSONSetRefusals(t *testing.T) {
	c, _ := bodyCatcher(t)
	ctx := context.Background()
	params := taskrouting.CreateTaskParams{Tags: []string{"english"}}
	tests := []struct {
		name string
		err  error
	}{
		{"empty member name", func() error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("meta..x", 1))
			return err
		}()},
		{"member inside a string", func() error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("tags.0.x", 1))
			return err
		}()},
		{"index past the array", func() error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("tags.3", "x"))
			return err
		}()},
		{"a GET sends no body", func() error {
			_, err := c.Tasks.Get(ctx, "t1", taskrouting.WithJSONSet("x", 1))
			return err
		}()},
		{"at the client", func() error {
			_, err := taskrouting.NewClient("http://127.0.0.1:1", "sk_test_x", taskrouting.WithJSONSet("x", 1))
			return err
		}()},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, taskrouting.ErrInvalidParams) {
			t.Errorf("%s: err = %v, want ErrInvalidParams", tt.name, tt.err)
		}
	}
}

// Against the mock server: a member set this way is stored like one the
// params type set, and the contract still refuses what it does not allow.
func TestWithJSONSetAgainstTheContract(t *testing.T) {
	srv := mockserver.Start(t)
	c := mockClient(t, srv)
	ctx := context.Background()
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}}, taskrouting.WithJSONSet("meta.source", "crm"))
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.Tasks.Get(ctx, ref.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"source": "crm"}, task.Meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}}, taskrouting.WithJSONSet("notInTheContract", 1))
	if !errors.Is(err, taskrouting.ErrValidation) {
		t.Errorf("a member the contract lacks: err = %v, want 400", err)
	}
}
