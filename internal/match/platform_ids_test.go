package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlatformEqualRanksCompareWholeIDs: under the platform rules equal ranks fall to the
// task id compared as a string (byte by byte, a prefix first), whatever the creation order
// and however long the ids: ids that share their first 8 or 16 bytes, ids whose later bytes
// would order them the other way, a prefix of another id, and bytes above ASCII.
func TestPlatformEqualRanksCompareWholeIDs(t *testing.T) {
	cases := []struct {
		name          string
		first, second string // created in this order, equal in rank
		offered       string
	}{
		{name: "short ids", first: "tz", second: "ta", offered: "ta"},
		{name: "the first 8 bytes shared", first: "customer-0002", second: "customer-0001", offered: "customer-0001"},
		{name: "the first 8 bytes decide", first: "b-task-aaaaaaaa", second: "a-task-zzzzzzzz", offered: "a-task-zzzzzzzz"},
		{name: "the first 16 bytes shared", first: "customer-order-0002", second: "customer-order-0001", offered: "customer-order-0001"},
		{name: "a prefix first", first: "ticket-1", second: "ticket", offered: "ticket"},
		{name: "bytes, not letters", first: "éclair", second: "zebra", offered: "zebra"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform})
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
			h.task(tc.first, "a")
			h.task(tc.second, "a")
			h.available("w1", true)
			other := tc.first
			if other == tc.offered {
				other = tc.second
			}
			want := map[string]string{tc.offered: "pending:w1", other: "queued"}
			if diff := cmp.Diff(want, h.state()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
