package taskrouting_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// Client.Do goes the typed methods' way: key, Idempotency-Key, quota,
// retries, middlewares, *APIError with the request id.
func TestDoSendsAnOperationThroughTheClientsPath(t *testing.T) {
	srv := mockserver.Start(t)
	var ops []string
	c := mockClient(t, srv, taskrouting.WithMiddleware(func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
		ops = append(ops, taskrouting.CallInfoFromContext(req.Context()).OperationID())
		return next(req)
	}))
	ctx := context.Background()
	if err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	var resp taskrouting.Response
	err := c.Do(ctx, "POST", "/tasks", map[string]any{"tags": []string{"english"}}, &created,
		taskrouting.WithIdempotencyKey("create-1"), taskrouting.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	var raw json.RawMessage
	if err := c.Do(ctx, "GET", "/tasks/"+created.ID+"?unused=", nil, &raw); err == nil {
		t.Error("an undeclared query parameter went through; the contract refuses it")
	}
	if err := c.Do(ctx, "GET", "/tasks/"+created.ID, nil, &raw); err != nil {
		t.Fatal(err)
	}
	var task taskrouting.Task
	if err := json.Unmarshal(raw, &task); err != nil || task.ID != created.ID {
		t.Fatalf("GET answer %s: %v", raw, err)
	}
	err = c.Do(ctx, "POST", "/tasks/"+created.ID+"/accept", []byte(`{"workerId":"nobody"}`), nil)
	var apiErr *taskrouting.APIError
	if !errors.As(err, &apiErr) || apiErr.RequestID == "" || apiErr.Path != "/tasks/"+created.ID+"/accept" {
		t.Fatalf("accept by an unknown worker: %v (request id %q)", err, apiErrRequestID(apiErr))
	}

	reqs := srv.Requests()
	if got := reqs[0].Header.Get("Idempotency-Key"); got != "create-1" || reqs[1].Header.Get("Idempotency-Key") != "create-1" {
		t.Errorf("Idempotency-Key on the attempts = %q, %q, want create-1 on both", got, reqs[1].Header.Get("Idempotency-Key"))
	}
	if resp.Attempts != 2 || !c.Quota().TaskRate.Known {
		t.Errorf("attempts %d (want 2), quota known %t (want true)", resp.Attempts, c.Quota().TaskRate.Known)
	}
	if diff := cmp.Diff([]string{"tasks.create", "tasks.get", "tasks.get", "tasks.accept"}, ops); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
}

func apiErrRequestID(e *taskrouting.APIError) string {
	if e == nil {
		return ""
	}
	return e.RequestID
}

// The credential never reaches an *APIError, even from a server that
// echoes it.
func TestDoRedactsTheKeyFromErrors(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{
			"code": "validation_failed", "message": "bad header " + r.Header.Get("Authorization")}})
	}))
	defer echo.Close()
	c, err := taskrouting.NewClient(echo.URL, echoedKey)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Do(context.Background(), "POST", "/not-modelled", map[string]any{"a": 1}, nil)
	if err == nil || strings.Contains(err.Error(), echoedKey) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("err = %v, want the key replaced by [redacted]", err)
	}
}

const echoedKey = "sk_test_do_not_leak_42"

func TestDoRefusesBadInputWithoutSending(t *testing.T) {
	srv := mockserver.Start(t)
	c := mockClient(t, srv)
	tests := []struct {
		name, method, path string
		body               any
	}{
		{"no leading slash", "GET", "tasks", nil},
		{"absolute URL", "GET", "https://elsewhere.example/tasks", nil},
		{"scheme-relative", "GET", "//elsewhere.example/tasks", nil},
		{"dot segment", "GET", "/tasks/../workers", nil},
		{"escaped dot segment", "GET", "/tasks/%2e%2e/workers", nil},
		{"unescaped space", "GET", "/tasks/a b", nil},
		{"unknown method", "TRACE", "/tasks", nil},
		{"body not JSON", "POST", "/tasks", []byte("{tags")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Do(context.Background(), tt.method, tt.path, tt.body, nil)
			if !errors.Is(err, taskrouting.ErrInvalidParams) {
				t.Errorf("err = %v, want ErrInvalidParams", err)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent, want none", n)
	}
}
