package taskrouting_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
)

// TestDoPathAndBodyRules: what Do refuses before sending (a *ParamError
// for the argument at fault) and how it sends the bodies it takes: a nil
// []byte or json.RawMessage sends no body at all, and a query is kept.
func TestDoPathAndBodyRules(t *testing.T) {
	ctx := context.Background()
	refused := []struct {
		name, method, path string
		body               any
		param              string
	}{
		{"single dot segment", "GET", "/tasks/./workers", nil, "path"},
		{"escaped single dot segment", "GET", "/tasks/%2E/workers", nil, "path"},
		{"bad escape", "GET", "/tasks/%zz", nil, "path"},
		{"fragment", "GET", "/tasks#x", nil, "path"},
		{"query that does not parse", "GET", "/stats/sla?tag=%zz", nil, "path"},
		{"raw JSON that is not JSON", "POST", "/tasks", json.RawMessage(`{"tags":`), "body"},
		{"HEAD", "HEAD", "/tasks", nil, "method"},
	}
	for _, tt := range refused {
		t.Run("refuses "+tt.name, func(t *testing.T) {
			rec := &recorder{answers: []func(http.ResponseWriter, *http.Request){answer(200, `{}`)}}
			c := startRecorder(t, rec)
			err := c.Do(ctx, tt.method, tt.path, tt.body, nil)
			var pe *taskrouting.ParamError
			if !errors.As(err, &pe) || pe.Param != tt.param {
				t.Errorf("err = %v, want a *ParamError for %s", err, tt.param)
			}
			if n := len(rec.requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
	sent := []struct {
		name, method, path string
		body               any
		want               sentRequest
	}{
		{"nil []byte sends no body", "POST", "/tasks/t1/escalate", []byte(nil),
			sentRequest{Method: "POST", Path: "/tasks/t1/escalate"}},
		{"nil json.RawMessage sends no body", "POST", "/tasks/t1/escalate", json.RawMessage(nil),
			sentRequest{Method: "POST", Path: "/tasks/t1/escalate"}},
		{"[]byte sent as it is", "PATCH", "/workers/w1", []byte(`{"available":false}`),
			sentRequest{Method: "PATCH", Path: "/workers/w1", Body: `{"available":false}`, ContentType: "application/json"}},
		{"query kept", "GET", "/stats/sla?tag=english", nil,
			sentRequest{Method: "GET", Path: "/stats/sla", Query: "tag=english"}},
	}
	for _, tt := range sent {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{answers: []func(http.ResponseWriter, *http.Request){answer(200, `{}`)}}
			c := startRecorder(t, rec)
			if err := c.Do(ctx, tt.method, tt.path, tt.body, nil); err != nil {
				t.Fatal(err)
			}
			got := rec.requests()
			for i := range got {
				got[i].IdempotencyKey = "" // a fresh one on every POST
			}
			if diff := cmp.Diff([]sentRequest{tt.want}, got); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
		})
	}
}
