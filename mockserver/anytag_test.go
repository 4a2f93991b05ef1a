package mockserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The deprecated AnyTagEligibility, set alone, selects the every-tag rules relaxed to any
// tag (as before the platform's rules became the default) and the server says so once; with
// the every-tag rules named it is quiet; with the platform's rules it is refused. The rule
// sets are told apart by the order equal priorities are served in: creation order under the
// every-tag rules, task id under the platform's.
func TestAnyTagEligibilityIsNeverSilent(t *testing.T) {
	t.Parallel()
	platformOrder := []string{"t-a", "t-b", "t-c"}
	everyTagOrder := []string{"t-c", "t-a", "t-b"}
	tests := []struct {
		name      string
		matcher   MatcherConfig
		wantOrder []string
		wantSaid  bool
		wantErr   bool
	}{
		{name: "default", wantOrder: platformOrder},
		{name: "AnyTagEligibility alone", matcher: MatcherConfig{AnyTagEligibility: true}, wantOrder: everyTagOrder, wantSaid: true},
		{name: "with RulesEveryTag", matcher: MatcherConfig{Rules: RulesEveryTag, AnyTagEligibility: true}, wantOrder: everyTagOrder},
		{name: "with RulesPlatform", matcher: MatcherConfig{Rules: RulesPlatform, AnyTagEligibility: true}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			capture := &logCapture{TB: t}
			opts := []Option{WithClock(NewManualClock(t0)), WithTestLogger(capture), WithMatcher(tt.matcher)}
			if tt.wantErr {
				_, err := New(opts...)
				require.Error(t, err)
				assert.Contains(t, err.Error(), "AnyTagEligibility")
				return
			}
			srv := Start(t, opts...)
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "maxBacklogSize": 1})
			for _, id := range []string{"t-c", "t-a", "t-b"} { // equal priority, created in this order
				mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": id, "tags": []string{"a", "other"}})
			}
			mustAPI(t, srv, 200, "POST", "/workers/w1/availability", map[string]any{"available": true})
			var served []string
			for range 3 {
				q := mustAPI(t, srv, 200, "GET", "/workers/w1/queue", nil).json(t)
				ids, _ := q["taskIds"].([]any)
				require.Len(t, ids, 1)
				id := ids[0].(string)
				served = append(served, id)
				mustAPI(t, srv, 200, "POST", "/tasks/"+id+"/accept", map[string]any{"workerId": "w1"})
				mustAPI(t, srv, 200, "POST", "/tasks/"+id+"/complete", map[string]any{"workerId": "w1"})
			}
			if diff := cmp.Diff(tt.wantOrder, served); diff != "" {
				t.Errorf("order served (-want +got):\n%s", diff)
			}
			said := 0
			for _, l := range capture.all() {
				if strings.Contains(l, "AnyTagEligibility (-any-tag) is deprecated") {
					said++
				}
			}
			want := 0
			if tt.wantSaid {
				want = 1
			}
			assert.Equal(t, want, said, "notices in the test log: %q", capture.all())
		})
	}
}
