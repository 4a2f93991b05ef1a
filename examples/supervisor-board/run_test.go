package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out strings.Builder
	require.NoError(t, run(ctx, &out))
	got := out.String()

	// The story, in order: the board, the actions and their effect on the board.
	want := []string{
		"signed in as Dana, team billing, session until 21:02",
		"team billing: 2 queued, 4 pending, 0 parked, oldest waiting 40s",
		"ana  2 offers held, available",
		"ben  2 offers held, available",
		"bumped vip to priority 90",
		"paused ben, released bill_3, bill_4",
		"assign vip to ana: blocked (her backlog is full)",
		"assigned vip to ana with force: pending",
		"bump sales_1: refused, outside the billing team",
		"team billing: 3 queued, 3 pending, 0 parked, oldest waiting 1m20s",
		"ana  3 offers held, available",
		"ben  0 offers held, paused",
		"summary: 2 queued and 4 pending before, 3 queued and 3 pending after; vip bumped and handed to ana, ben paused (2 offers released), 1 out-of-team action refused",
	}
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if !assert.GreaterOrEqual(t, i, 0, "missing, or out of order: %q", w) {
			continue
		}
		rest = rest[i+len(w):]
	}
	assert.NotContains(t, got, "sv_", "the session token is never printed")
	if t.Failed() {
		t.Logf("output:\n%s", got)
	}
}
