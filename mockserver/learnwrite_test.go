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

// learningPair starts a server with two equal, available English workers, ana and ben.
func learningPair(t *testing.T) (*taskrouting.Client, *mockserver.ManualClock) {
	t.Helper()
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000).UTC())
	// Learning ranks workers under the every-tag rules; the platform's engine runs with
	// learning off (docs/contract.md, "How the platform matches").
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithMatcher(mockserver.MatcherConfig{Rules: mockserver.RulesEveryTag}))
	c := newClient(t, srv, srv.APIKey())
	for _, id := range []string{"ana", "ben"} {
		_, err := c.Workers.Upsert(context.Background(), taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}
	return c, clk
}

func offeredTo(t *testing.T, c *taskrouting.Client, id string) string {
	t.Helper()
	_, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{ID: id, Tags: []string{"english"}})
	require.NoError(t, err)
	task, err := c.Tasks.Get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, "pending", string(task.Status))
	return task.WorkerID
}

// TestLearningRewardsThroughClient drives rewards by hand and checks every number learning
// reports against the arithmetic: ana accepts t1 (+1), then t1 is rewarded -5, so ana's
// English mean is (1 - 5) / 2 = -2 and her factor 1 + 0.5·tanh(-1) ≈ 0.619 hands the next
// task to ben; a reset forgets it, and the tie goes back to ana (fewer pending offers).
func TestLearningRewardsThroughClient(t *testing.T) {
	t.Parallel()
	c, _ := learningPair(t)
	ctx := context.Background()

	require.Equal(t, "ana", offeredTo(t, c, "t1"), "equal workers: the id breaks the tie")
	_, err := c.Decisions.Accept(ctx, "t1", "ana")
	require.NoError(t, err)
	require.NoError(t, c.Learning.Reward(ctx, "t1", -5))

	st, err := c.Learning.Status(ctx)
	require.NoError(t, err)
	if diff := cmp.Diff(&taskrouting.LearningStats{Decisions: 1, Rewards: 2, TotalReward: -4, AverageReward: -2}, st.Stats); diff != "" {
		t.Errorf("status after accept and reward (-want +got):\n%s", diff)
	}
	ws, err := c.Learning.WorkerStats(ctx, "ana")
	require.NoError(t, err)
	require.Len(t, ws.Skills, 1)
	assert.Equal(t, 2, ws.Skills[0].Count)
	assert.InDelta(t, -2, ws.Skills[0].MeanReward, 1e-12)

	assert.Equal(t, "ben", offeredTo(t, c, "t2"), "ana's negative reward ranks her below ben")

	require.NoError(t, c.Learning.Reset(ctx))
	st, err = c.Learning.Status(ctx)
	require.NoError(t, err)
	if diff := cmp.Diff(&taskrouting.LearningStats{Decisions: 2}, st.Stats); diff != "" {
		t.Errorf("status after reset keeps only the decisions (-want +got):\n%s", diff)
	}
	assert.Equal(t, 0, st.ModelSize)
	ws, err = c.Learning.WorkerStats(ctx, "ana")
	require.NoError(t, err)
	assert.Empty(t, ws.Skills)
	assert.Equal(t, "ana", offeredTo(t, c, "t3"), "after the reset the tie goes to fewer pending offers")
}

// TestLearningFeedbackSumsSignals checks that feedback's reward is the sum of its signals and
// that a task nobody holds, or no task, is refused without changing what learning reports.
func TestLearningFeedbackSumsSignals(t *testing.T) {
	t.Parallel()
	c, _ := learningPair(t)
	ctx := context.Background()
	require.Equal(t, "ana", offeredTo(t, c, "t1"))
	require.NoError(t, c.Learning.Feedback(ctx, "t1", map[string]float64{"csat": 0.5, "speed": 2}))

	ws, err := c.Learning.WorkerStats(ctx, "ana")
	require.NoError(t, err)
	require.Len(t, ws.Skills, 1)
	assert.Equal(t, 1, ws.Skills[0].Count)
	assert.InDelta(t, 2.5, ws.Skills[0].MeanReward, 1e-12, "a pending offer's worker is credited")
	require.NoError(t, c.Learning.Feedback(ctx, "t1", nil), "no signals: accepted")
	ws, err = c.Learning.WorkerStats(ctx, "ana")
	require.NoError(t, err)
	assert.Equal(t, 1, ws.Skills[0].Count, "no signals: nothing recorded")

	for _, id := range []string{"ana", "ben"} {
		_, err = c.Workers.SetAvailability(ctx, id, taskrouting.SetAvailabilityParams{Available: false, ReleaseBacklog: true})
		require.NoError(t, err)
	}
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "queued", Tags: []string{"english"}})
	require.NoError(t, err)

	before, err := c.Learning.Status(ctx)
	require.NoError(t, err)
	assert.ErrorIs(t, c.Learning.Reward(ctx, "queued", 1), taskrouting.ErrInvalidState, "nobody holds a queued task")
	assert.ErrorIs(t, c.Learning.Feedback(ctx, "nope", map[string]float64{"csat": 1}), taskrouting.ErrNotFound)
	assert.ErrorIs(t, c.Learning.Reward(ctx, "t1", 2e6), taskrouting.ErrValidation, "rewards are bounded")
	assert.ErrorIs(t, c.Learning.Feedback(ctx, "queued", nil), taskrouting.ErrInvalidState, "no signals still needs a worker to credit")
	after, err := c.Learning.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after, "refused rewards change nothing")
}

// TestLearningFeedbackBulkPartial checks that each item stands alone: the good ones count, a
// bad one names its error code, an empty one is accepted and records nothing.
func TestLearningFeedbackBulkPartial(t *testing.T) {
	t.Parallel()
	c, _ := learningPair(t)
	ctx := context.Background()
	require.Equal(t, "ana", offeredTo(t, c, "t1"))

	got, err := c.Learning.FeedbackBulk(ctx, []taskrouting.FeedbackItem{
		{TaskID: "t1", Reward: taskrouting.Ptr(1.0), Signals: map[string]float64{"csat": 1}},
		{TaskID: "nope", Reward: taskrouting.Ptr(1.0)},
		{TaskID: "t1"},
	})
	require.NoError(t, err)
	want := []taskrouting.FeedbackResult{{TaskID: "t1", OK: true}, {TaskID: "nope", Error: "not_found"}, {TaskID: "t1", OK: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	st, err := c.Learning.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Stats.Rewards)
	assert.InDelta(t, 2, st.Stats.TotalReward, 1e-12, "reward plus signals")
}

// TestLearnedWeightsApplyAndRevert previews, applies and reverts learned weights. ana's mean
// is -2 (accept +1, reward -5), so her learned English weight is 1·(1 + 0.5·tanh(-1)) =
// 0.6192 (4 decimals); a manual weight 2 is left out unless overrideManual, then 2·0.6192…
func TestLearnedWeightsApplyAndRevert(t *testing.T) {
	t.Parallel()
	c, _ := learningPair(t)
	ctx := context.Background()
	require.Equal(t, "ana", offeredTo(t, c, "t1"))
	_, err := c.Decisions.Accept(ctx, "t1", "ana")
	require.NoError(t, err)
	require.NoError(t, c.Learning.Reward(ctx, "t1", -5))
	factor := 1 + 0.5*math.Tanh(-1)
	round4 := func(v float64) float64 { return math.Round(v*1e4) / 1e4 }

	prev, err := c.Learning.PreviewWeights(ctx, taskrouting.PreviewWeightsParams{})
	require.NoError(t, err)
	want := []taskrouting.LearnedWeights{{WorkerID: "ana", Current: map[string]float64{}, Learned: map[string]float64{"english": round4(factor)}}}
	if diff := cmp.Diff(want, prev); diff != "" {
		t.Errorf("preview: only ana learned something (-want +got):\n%s", diff)
	}
	prev, err = c.Learning.PreviewWeights(ctx, taskrouting.PreviewWeightsParams{WorkerID: "ben", IncludeUnexploredTags: true})
	require.NoError(t, err)
	want = []taskrouting.LearnedWeights{{WorkerID: "ben", Current: map[string]float64{}, Learned: map[string]float64{"english": 1}}}
	if diff := cmp.Diff(want, prev); diff != "" {
		t.Errorf("preview of an unexplored tag keeps its weight (-want +got):\n%s", diff)
	}

	applied, err := c.Learning.ApplyWeights(ctx, taskrouting.ApplyWeightsParams{})
	require.NoError(t, err)
	assert.Equal(t, map[string]map[string]float64{"ana": {"english": round4(factor)}}, applied)
	ana, err := c.Workers.Get(ctx, "ana")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"english": round4(factor)}, ana.RoutingWeights, "matching now uses the learned weight")
	again, err := c.Learning.ApplyWeights(ctx, taskrouting.ApplyWeightsParams{})
	require.NoError(t, err)
	assert.Equal(t, applied, again, "a second apply starts from the weight before the first, not compounding")

	rev, err := c.Learning.RevertWeights(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.RevertedWeights{Reverted: []string{"ana"}, Count: 1}, rev)
	ana, err = c.Workers.Get(ctx, "ana")
	require.NoError(t, err)
	assert.Empty(t, ana.RoutingWeights, "back to no weights")
	rev, err = c.Learning.RevertWeights(ctx, []string{"ana", "ben"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.RevertedWeights{Reverted: []string{}}, rev, "nothing left to revert")

	_, err = c.Workers.Patch(ctx, "ana", taskrouting.PatchWorkerParams{RoutingWeights: map[string]float64{"english": 2}})
	require.NoError(t, err)
	prev, err = c.Learning.PreviewWeights(ctx, taskrouting.PreviewWeightsParams{WorkerID: "ana"})
	require.NoError(t, err)
	assert.Empty(t, prev[0].Learned, "a manual weight is the caller's")
	prev, err = c.Learning.PreviewWeights(ctx, taskrouting.PreviewWeightsParams{WorkerID: "ana", OverrideManual: true})
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"english": round4(2 * factor)}, prev[0].Learned)
}

// TestPreviewWeightsOfUnknownWorker checks that naming a worker that does not exist is a 404.
func TestPreviewWeightsOfUnknownWorker(t *testing.T) {
	t.Parallel()
	c, _ := learningPair(t)
	_, err := c.Learning.PreviewWeights(context.Background(), taskrouting.PreviewWeightsParams{WorkerID: "zed"})
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
}
