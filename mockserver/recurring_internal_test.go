package mockserver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// When the clock jumps over several boundaries at once (a real clock after a pause; a manual
// clock visits each boundary), catchUp "all" cuts one occurrence per boundary at its own time
// and "skip" only one, at the latest boundary.
func TestRecurringCatchUpOnAClockJump(t *testing.T) {
	t0 := time.UnixMilli(1763700000000).UTC()
	all := "all"
	tests := []struct {
		name    string
		catchUp *string
		want    []time.Duration // creation times of the occurrences, after t0
	}{
		{"skip by default", nil, []time.Duration{0, 3 * time.Hour}},
		{"all", &all, []time.Duration{0, time.Hour, 2 * time.Hour, 3 * time.Hour}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := New(WithClock(NewManualClock(t0)))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ws := srv.workspaces[srv.keys[0]]
			ws.mu.Lock()
			defer ws.mu.Unlock()
			if _, _, aerr := ws.createTemplate(match.TaskInput{ID: "tpl", Tags: []string{"ops"}}, false,
				&recurrence{every: time.Hour, catchUp: tc.catchUp}, t0); aerr != nil {
				t.Fatal(aerr)
			}
			ws.fireRecurring(t0.Add(3*time.Hour + 30*time.Minute))

			tpl := ws.recurring.find("tpl")
			var got []time.Duration
			for _, id := range tpl.cut {
				task, err := ws.engine.Task(id)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, task.CreatedAt.Sub(t0))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("occurrences (-want +got):\n%s", d)
			}
			if tpl.occurrences != len(tc.want) || !tpl.nextAt.Equal(t0.Add(4*time.Hour)) {
				t.Errorf("occurrences %d, nextAt %v; want %d, t0+4h", tpl.occurrences, tpl.nextAt.Sub(t0), len(tc.want))
			}
		})
	}
}
