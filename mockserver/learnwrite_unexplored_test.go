package mockserver_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestPreviewWeightsUnexploredTags: with includeUnexploredTags a worker's tags without any
// reward join the preview at their base weight, but a tag learning has an outcome for keeps
// its learned weight, and a tag the caller weighed by hand stays out unless overrideManual
// (then at that weight). ana's English mean is -2 (accept +1, reward -5): learned
// 1·(1 + 0.5·tanh(-1)) = 0.6192; her French weight 3 is manual, her German has none.
func TestPreviewWeightsUnexploredTags(t *testing.T) {
	t.Parallel()
	c, _ := learningPair(t)
	ctx := context.Background()
	require.Equal(t, "ana", offeredTo(t, c, "t1"))
	_, err := c.Decisions.Accept(ctx, "t1", "ana")
	require.NoError(t, err)
	require.NoError(t, c.Learning.Reward(ctx, "t1", -5))
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english", "french", "german"},
		RoutingWeights: map[string]float64{"french": 3}})
	require.NoError(t, err)
	english := math.Round((1+0.5*math.Tanh(-1))*1e4) / 1e4
	require.Equal(t, 0.6192, english)
	current := map[string]float64{"french": 3}

	cases := []struct {
		name string
		p    taskrouting.PreviewWeightsParams
		want map[string]float64
	}{
		{"learned only", taskrouting.PreviewWeightsParams{WorkerID: "ana"}, map[string]float64{"english": english}},
		{"unexplored", taskrouting.PreviewWeightsParams{WorkerID: "ana", IncludeUnexploredTags: true}, map[string]float64{"english": english, "german": 1}},
		{"unexplored and manual", taskrouting.PreviewWeightsParams{WorkerID: "ana", IncludeUnexploredTags: true, OverrideManual: true},
			map[string]float64{"english": english, "french": 3, "german": 1}},
	}
	for _, tc := range cases {
		got, err := c.Learning.PreviewWeights(ctx, tc.p)
		require.NoError(t, err)
		assert.Empty(t, cmp.Diff([]taskrouting.LearnedWeights{{WorkerID: "ana", Current: current, Learned: tc.want}}, got), tc.name)
	}
}

// TestPreviewWeightsLearningOff: with learning turned off (MatcherConfig.LearningDisabled) a
// preview proposes nothing, not even an unexplored tag's base weight: the workspace-wide
// preview lists no worker, and the one named has its current weights and nothing learned.
func TestPreviewWeightsLearningOff(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(time.UnixMilli(1763700000000))),
		mockserver.WithMatcher(mockserver.MatcherConfig{LearningDisabled: true}))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english", "french"},
		RoutingWeights: map[string]float64{"english": 2, "french": 1}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	all, err := c.Learning.PreviewWeights(ctx, taskrouting.PreviewWeightsParams{IncludeUnexploredTags: true, OverrideManual: true})
	require.NoError(t, err)
	assert.Empty(t, all)
	one, err := c.Learning.PreviewWeights(ctx, taskrouting.PreviewWeightsParams{WorkerID: "ana", IncludeUnexploredTags: true, OverrideManual: true})
	require.NoError(t, err)
	want := []taskrouting.LearnedWeights{{WorkerID: "ana", Current: map[string]float64{"english": 2, "french": 1}, Learned: map[string]float64{}}}
	assert.Empty(t, cmp.Diff(want, one))
}
