package mockserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandLogKeepsOrderAcrossArrays holds the state log's arrays to one log: every entry
// in order, each reachable by its index (end sets the status of the right one), past the
// largest array and up to a limit, whose arrays together never hold more than it.
func TestCommandLogKeepsOrderAcrossArrays(t *testing.T) {
	t0 := time.Unix(0, 0)
	for _, tc := range []struct{ limit, n int }{{0, 3 * logChunkMax}, {100, 100}, {64, 64}, {65, 65}, {5000, 4999}} {
		l := commandLog{limit: tc.limit}
		for i := range tc.n {
			require.True(t, l.room(), "limit %d: room for entry %d", tc.limit, i)
			l.push(stateCommand{At: t0.Add(time.Duration(i))})
			l.end(i, i)
		}
		l.end(tc.n/2, -1)
		all := l.all()
		require.Len(t, all, tc.n, "limit %d", tc.limit)
		held := 0
		for _, c := range l.chunks {
			held += cap(c)
		}
		if tc.limit > 0 {
			assert.LessOrEqual(t, held, tc.limit, "limit %d: the arrays hold more than the limit", tc.limit)
		}
		for i, c := range all {
			want := i
			if i == tc.n/2 {
				want = -1
			}
			if c.At != t0.Add(time.Duration(i)) || c.Status != want || l.at(i) == nil || l.at(i).At != c.At {
				t.Fatalf("limit %d: entry %d is %v, status %d", tc.limit, i, c.At, c.Status)
			}
		}
	}
}
