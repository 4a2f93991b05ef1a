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

	// Each task's winner and the rule that left the others out, in order.
	want := []string{
		"task es-complaint needs spanish >= 3",
		"ana   GETS IT  score 101.0  level 5 adds 100",
		"carla eligible score  81.0  level 4 adds 80",
		"ben   out      score   1.0  skillLevelTooLow (2 < 3)",
		"task refund-1 needs refunds >= 3",
		"ben   GETS IT  score  81.0  level 4 adds 80",
		"task es-escalation needs spanish >= 4",
		"carla GETS IT",
		"expiring: carla spanish until 2026-07-21 (expired true)",
		"task es-followup needs spanish >= 2",
		"ben   GETS IT",
		"carla out      score   1.0  skillExpired",
		"summary: 4 tasks routed by skill level, es-complaint -> ana, refund-1 -> ben, es-escalation -> carla, es-followup -> ben",
	}
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if !assert.GreaterOrEqual(t, i, 0, "missing, or out of order: %q", w) {
			continue
		}
		rest = rest[i+len(w):]
	}
	if t.Failed() {
		t.Logf("output:\n%s", got)
	}
}
