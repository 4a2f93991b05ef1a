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

	// The break part of the story, in order: nothing reaches sam while he is away, the waiting
	// task reaches him as soon as he is back.
	want := []string{
		"desk: session for sam, valid for 12h0m0s",
		"desk: signed in as sam (available false, on break false)",
		"desk: accepted, commented and completed",
		"desk: break started (lunch), on break true",
		`"Change my address" (priority 30): offered to kim`,
		`"Cancel my order" (priority 50): waits in the queue`,
		"desk: offers during the break: 0",
		"desk: break ended",
		"desk: session refreshed",
		"desk: offered task_", // the id depends on the server's id sequence
		`"Cancel my order" (priority 50)`,
		"desk: accepted, commented and completed",
		"desk: today: 2 tasks completed, 1 shift(s), 1 break(s)",
		"summary: sam completed 2 tasks, 0 offers during the break, kim took",
	}
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if !assert.GreaterOrEqual(t, i, 0, "missing, or out of order: %q", w) {
			continue
		}
		rest = rest[i+len(w):]
	}
	assert.NotContains(t, got, "4821", "the PIN is never printed")
	if t.Failed() {
		t.Logf("output:\n%s", got)
	}
}
