package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// tasks.history takes from and to as epoch milliseconds or as ISO-8601, with the same
// answer; a time in neither form, and a cursor the server did not issue, are refused.
func TestHistoryTimesInBothFormsAndBadQueries(t *testing.T) {
	clock := NewManualClock(t0)
	srv := Start(t, WithClock(clock))
	for _, id := range []string{"t1", "t2", "t3"} {
		mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{"id": id, "tags": []string{"x"}})
		clock.Advance(time.Minute)
		mustAPI(t, srv, http.StatusNoContent, "DELETE", "/tasks/"+id, nil)
		clock.Advance(time.Minute)
	}
	// Cancelled at +1m, +3m and +5m.
	ids := func(query string) []string {
		t.Helper()
		var page struct {
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", "/tasks/history?"+query, nil).Body, &page))
		out := []string{}
		for _, task := range page.Tasks {
			out = append(out, task.ID)
		}
		return out
	}
	ms := func(d time.Duration) string { return fmt.Sprint(t0.Add(d).UnixMilli()) }
	iso := func(d time.Duration) string { return url.QueryEscape(t0.Add(d).Format(time.RFC3339Nano)) }
	for _, tc := range []struct {
		name, from, to string
	}{
		{"epoch milliseconds", ms(2 * time.Minute), ms(4 * time.Minute)},
		{"ISO-8601", iso(2 * time.Minute), iso(4 * time.Minute)},
		{"one of each", ms(2 * time.Minute), iso(4 * time.Minute)},
	} {
		if d := cmp.Diff([]string{"t2"}, ids("from="+tc.from+"&to="+tc.to)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	if d := cmp.Diff([]string{"t3", "t2", "t1"}, ids("from=0")); d != "" {
		t.Errorf("from=0 (-want +got):\n%s", d)
	}
	// A cursor reads the entries below its position: 1 is below t2, and 0, below every
	// entry, is an empty page (as any cursor at or below the forgotten entries), not an error.
	for _, tc := range []struct {
		cursor string
		want   []string
	}{{"2", []string{"t2", "t1"}}, {"1", []string{"t1"}}, {"0", []string{}}} {
		if d := cmp.Diff(tc.want, ids("cursor="+tc.cursor)); d != "" {
			t.Errorf("cursor=%s (-want +got):\n%s", tc.cursor, d)
		}
	}
	for _, tc := range []struct {
		name, query, code string
	}{
		{"from in neither form", "from=yesterday", CodeValidationFailed},
		{"to in neither form", "to=2025-13-01", CodeValidationFailed},
		{"a negative cursor", "cursor=-1", CodeInvalidBody},
		{"a cursor that is not a number", "cursor=abc", CodeInvalidBody},
	} {
		a := api(t, srv, "GET", "/tasks/history?"+tc.query, nil)
		if a.Status != http.StatusBadRequest || a.errCode(t) != tc.code {
			t.Errorf("%s: %d %s, want 400 %s", tc.name, a.Status, a.Body, tc.code)
		}
	}
}
