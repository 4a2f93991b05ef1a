package mockserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestEventQueriesKeepToRetentionAndLimit: EventsWhere, CountEvents and GET /_mock/events
// read only the events Events still keeps (WithRetention: the newest n), and a Limit cuts
// the oldest matches after Since, with nextSince the last one returned; without a cut,
// nextSince is the newest event's Seq.
func TestEventQueriesKeepToRetentionAndLimit(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)), WithRetention(3))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true, "maxBacklogSize": 10})
	for i := 1; i <= 5; i++ {
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": fmt.Sprintf("t%d", i), "tags": []string{"a"}})
	}
	seqs := func(evs []Event) []int64 {
		out := []int64{}
		for _, e := range evs {
			out = append(out, e.Seq)
		}
		return out
	}
	require.Equal(t, []int64{3, 4, 5}, seqs(srv.Events()), "the newest three of five")

	type page struct {
		Seqs      []int64
		Count     int
		NextSince int64
	}
	cases := []struct {
		name  string
		f     EventFilter
		query string
		want  page
	}{
		{"all kept", EventFilter{}, "", page{[]int64{3, 4, 5}, 3, 5}},
		{"limit", EventFilter{Limit: 2}, "limit=2", page{[]int64{3, 4}, 3, 4}},
		{"since a forgotten one, limit", EventFilter{Since: 1, Limit: 1}, "since=1&limit=1", page{[]int64{3}, 3, 3}},
		{"since and a limit past the end", EventFilter{Since: 3, Limit: 5}, "since=3&limit=5", page{[]int64{4, 5}, 2, 5}},
		{"one task", EventFilter{TaskID: "t4"}, "taskId=t4", page{[]int64{4}, 1, 5}},
		{"a forgotten task", EventFilter{TaskID: "t1"}, "taskId=t1", page{[]int64{}, 0, 5}},
		{"since the newest", EventFilter{Since: 5}, "since=5", page{[]int64{}, 0, 5}},
		{"since past the newest: nextSince stays", EventFilter{Since: 9}, "since=9", page{[]int64{}, 0, 9}},
		{"a kind no kept event has", EventFilter{Kind: "task.completed"}, "kind=task.completed", page{[]int64{}, 0, 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := page{Seqs: seqs(srv.EventsWhere(tc.f)), Count: srv.CountEvents(tc.f)}
			a := adminGet(t, srv, "/events?"+tc.query)
			require.Equal(t, 200, a.Status, "%s", a.Body)
			var body struct {
				Events []struct {
					ID string `json:"id"`
				}
				NextSince int64
			}
			require.NoError(t, json.Unmarshal(a.Body, &body))
			require.Len(t, body.Events, len(got.Seqs), "the admin route returns what EventsWhere does")
			got.NextSince = body.NextSince
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
