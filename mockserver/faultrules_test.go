package mockserver

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// InjectFault refuses every fault it cannot apply with ErrInvalidFault and a message naming
// the rule broken, and takes the faults on each rule's edge.
func TestInjectFaultValidation(t *testing.T) {
	tests := []struct {
		name  string
		fault Fault
		want  string // "" when the fault is taken
	}{
		{"status below 400", Fault{Status: 399}, "status 399 is not a 4xx or 5xx"},
		{"status above 599", Fault{Status: 600}, "status 600 is not a 4xx or 5xx"},
		{"status 400", Fault{Status: 400}, ""},
		{"status 599", Fault{Status: 599}, ""},
		{"fraction below 0", Fault{Status: 500, Fraction: -0.1}, "fraction -0.1 is outside [0, 1]"},
		{"fraction above 1", Fault{Status: 500, Fraction: 1.5}, "fraction 1.5 is outside [0, 1]"},
		{"fraction 1", Fault{Status: 500, Fraction: 1}, ""},
		{"negative times", Fault{Status: 500, Times: -1}, "times -1 is negative"},
		{"times 1", Fault{Status: 500, Times: 1}, ""},
		{"negative delay", Fault{Delay: -time.Second}, "negative duration"},
		{"negative retry-after", Fault{Status: 503, RetryAfter: -time.Second}, "negative duration"},
		{"status and drop before", Fault{Status: 500, DropBeforeCommit: true}, "a fault answers a status or drops the connection, not both"},
		{"status and drop after", Fault{Status: 500, DropAfterCommit: true}, "a fault answers a status or drops the connection, not both"},
		{"both drops", Fault{DropBeforeCommit: true, DropAfterCommit: true}, "drop before and after commit are exclusive"},
		{"drop before alone", Fault{DropBeforeCommit: true}, ""},
		{"drop after alone", Fault{DropAfterCommit: true}, ""},
		{"delay and distribution", Fault{Delay: time.Millisecond, DelayDist: &DelayDistribution{}}, "a fault has a fixed Delay or a DelayDist, not both"},
		{"delay alone", Fault{Delay: time.Millisecond}, ""},
		{"nothing", Fault{Method: "GET"}, "the fault does nothing"},
		{"bad pattern", Fault{Status: 500, Path: "["}, "bad path pattern"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := NewUnstarted()
			require.NoError(t, err)
			defer srv.Close()
			err = srv.InjectFault(tc.fault)
			if tc.want == "" {
				if err != nil {
					t.Errorf("InjectFault(%+v) = %v, want nil", tc.fault, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidFault) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("InjectFault(%+v) = %v, want ErrInvalidFault saying %q", tc.fault, err, tc.want)
			}
		})
	}
}

// A fault with a Method applies to that method only, in any case; a dropped connection is
// ErrDropped through the in-process transport, and DropBeforeCommit changes nothing while
// DropAfterCommit keeps the change.
func TestFaultMethodAndDropsInProcess(t *testing.T) {
	srv, err := NewUnstarted()
	require.NoError(t, err)
	defer srv.Close()
	hc := &http.Client{Transport: srv.Transport()}
	do := func(method, path, body string) (int, error) {
		req, err := http.NewRequest(method, "http://mock.invalid"+BasePath+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey())
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	taskCount := func() int {
		ws := srv.workspaces[srv.keys[0]]
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return ws.openTasks
	}

	require.NoError(t, srv.InjectFault(Fault{Method: "post", Path: "/tasks", DropBeforeCommit: true, Times: 1}))
	require.NoError(t, srv.InjectFault(Fault{Method: "POST", Path: "/tasks", DropAfterCommit: true, Times: 1}))

	if status, err := do("GET", "/tasks", ""); err != nil || status != http.StatusOK {
		t.Fatalf("GET /tasks under POST faults: %d, %v; want 200", status, err)
	}
	if _, err := do("POST", "/tasks", `{"id":"t1","tags":["x"]}`); !errors.Is(err, ErrDropped) {
		t.Fatalf("first POST: %v, want ErrDropped", err)
	}
	if n := taskCount(); n != 0 {
		t.Errorf("open tasks after a drop before commit: %d, want 0", n)
	}
	if _, err := do("POST", "/tasks", `{"id":"t1","tags":["x"]}`); !errors.Is(err, ErrDropped) {
		t.Fatalf("second POST: %v, want ErrDropped", err)
	}
	if n := taskCount(); n != 1 {
		t.Errorf("open tasks after a drop after commit: %d, want 1", n)
	}
	status, err := do("POST", "/tasks", `{"id":"t2","tags":["x"]}`)
	if err != nil || status != http.StatusAccepted {
		t.Errorf("third POST, both faults used up: %d, %v; want 202", status, err)
	}
	var faults []string
	for _, r := range srv.Requests() {
		faults = append(faults, r.Method+" "+r.Fault)
	}
	if d := cmp.Diff([]string{"GET ", "POST drop-before-commit", "POST drop-after-commit", "POST "}, faults); d != "" {
		t.Errorf("recorded faults (-want +got):\n%s", d)
	}
}
