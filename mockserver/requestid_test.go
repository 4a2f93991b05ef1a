package mockserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every answer carries an X-Request-Id of its own, successes, refusals,
// injected faults and the admin routes alike, and the request log keeps it.
func TestRequestIDOnEveryAnswer(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	if err := srv.InjectFault(Fault{Path: "/stats", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	answers := []struct {
		name string
		a    answer
	}{
		{"success", api(t, srv, "POST", "/tasks", map[string]any{"tags": []string{"english"}})},
		{"not found", api(t, srv, "GET", "/tasks/nope", nil)},
		{"unauthorized", call(t, srv, "", "GET", "/workers", nil)},
		{"validation", api(t, srv, "POST", "/tasks", map[string]any{"tags": []string{}})},
		{"injected fault", api(t, srv, "GET", "/stats", nil)},
		{"admin", adminGet(t, srv, "/clock")},
	}
	seen := map[string]string{}
	var wantStatuses, gotStatuses []int
	for _, tt := range answers {
		id := tt.a.Header.Get(RequestIDHeader)
		if !strings.HasPrefix(id, "req_") {
			t.Errorf("%s: %s = %q, want req_...", tt.name, RequestIDHeader, id)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s share request id %q", other, tt.name, id)
		}
		seen[id] = tt.name
		wantStatuses = append(wantStatuses, tt.a.Status)
	}
	for _, rec := range srv.Requests() {
		if name, ok := seen[rec.RequestID]; !ok {
			t.Errorf("logged request %s %s has id %q that no answer carried", rec.Method, rec.Path, rec.RequestID)
		} else if name == "admin" {
			t.Errorf("the admin route was logged as an API request")
		}
		gotStatuses = append(gotStatuses, rec.StatusCode)
	}
	if diff := cmp.Diff(wantStatuses[:len(wantStatuses)-1], gotStatuses); diff != "" {
		t.Errorf("logged statuses (-answered +logged):\n%s", diff)
	}
	if answers[len(answers)-1].a.Status != http.StatusOK {
		t.Errorf("admin clock: status %d", answers[len(answers)-1].a.Status)
	}
}
