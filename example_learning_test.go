package taskrouting_test

import (
	"context"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// accepted makes ana accept a task, which learning counts as a reward of +1
// for her on the task's tags.
func (sb *sandbox) accepted(taskID string) {
	sb.worker("ana", "english")
	sb.task(taskID, 0, "english")
	if _, err := sb.c.Decisions.Accept(context.Background(), taskID, "ana"); err != nil {
		panic(err)
	}
}

// Reward adds an outcome the service cannot see, such as a customer's
// rating, to what learning knows about the task's worker.
func ExampleLearningService_Reward() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.accepted("t1")

	if err := c.Learning.Reward(ctx, "t1", 3); err != nil {
		panic(err)
	}
	stats, err := c.Learning.WorkerStats(ctx, "ana")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d rewards, mean %.1f\n", stats.Skills[0].Tag, stats.Skills[0].Count, stats.Skills[0].MeanReward)
	// Output: english: 2 rewards, mean 2.0
}

// Feedback reports named signals; the mock server's reward is their sum.
func ExampleLearningService_Feedback() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.accepted("t1")

	if err := c.Learning.Feedback(ctx, "t1", map[string]float64{"csat": 0.5, "firstContactResolution": 1}); err != nil {
		panic(err)
	}
	stats, err := c.Learning.WorkerStats(ctx, "ana")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d outcomes, mean %.2f\n", stats.Skills[0].Tag, stats.Skills[0].Count, stats.Skills[0].MeanReward)
	// Output: english: 2 outcomes, mean 1.25
}

// FeedbackBulk answers one result per item; a failed item does not stop
// the others.
func ExampleLearningService_FeedbackBulk() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.accepted("t1")

	results, err := c.Learning.FeedbackBulk(ctx, []taskrouting.FeedbackItem{
		{TaskID: "t1", Reward: taskrouting.Ptr(2.0)},
		{TaskID: "t404", Reward: taskrouting.Ptr(2.0)},
	})
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		fmt.Printf("%s ok=%t %q\n", r.TaskID, r.OK, r.Error)
	}
	// Output:
	// t1 ok=true ""
	// t404 ok=false "not_found"
}

// Reset forgets what learning learned; the decisions made stay counted. The
// server here ranks by learning (-learning-rank), so Status reports its model.
func ExampleLearningService_Reset() {
	c, sb := newSandbox(mockserver.WithMatcher(mockserver.MatcherConfig{LearningRanks: true}))
	defer sb.Close()
	ctx := context.Background()
	sb.accepted("t1")

	if err := c.Learning.Reset(ctx); err != nil {
		panic(err)
	}
	st, err := c.Learning.Status(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Stats.Decisions, st.Stats.Rewards, st.ModelSize)
	// Output: 1 0 0
}

// PreviewWeights shows what learning would write: ana's accept (+1) makes
// her English weight 1 × (1 + 0.5 × tanh(0.5)).
func ExampleLearningService_PreviewWeights() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.accepted("t1")

	rows, err := c.Learning.PreviewWeights(ctx, taskrouting.PreviewWeightsParams{})
	if err != nil {
		panic(err)
	}
	for _, r := range rows {
		fmt.Println(r.WorkerID, r.Current, r.Learned)
	}
	// Output: ana map[] map[english:1.2311]
}

// ApplyWeights writes the learned weights, which matching uses at once;
// RevertWeights puts the previous ones back.
func ExampleLearningService_ApplyWeights() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.accepted("t1")

	applied, err := c.Learning.ApplyWeights(ctx, taskrouting.ApplyWeightsParams{WorkerIDs: []string{"ana"}})
	if err != nil {
		panic(err)
	}
	fmt.Println("applied:", applied)
	w, err := c.Workers.Get(ctx, "ana")
	if err != nil {
		panic(err)
	}
	fmt.Println("routing weights:", w.RoutingWeights)
	// Output:
	// applied: map[ana:map[english:1.2311]]
	// routing weights: map[english:1.2311]
}

// RevertWeights restores the weights a worker had before the first apply.
func ExampleLearningService_RevertWeights() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.accepted("t1")
	if _, err := c.Learning.ApplyWeights(ctx, taskrouting.ApplyWeightsParams{}); err != nil {
		panic(err)
	}

	rev, err := c.Learning.RevertWeights(ctx, nil)
	if err != nil {
		panic(err)
	}
	w, err := c.Workers.Get(ctx, "ana")
	if err != nil {
		panic(err)
	}
	fmt.Println(rev.Reverted, rev.Count, w.RoutingWeights)
	// Output: [ana] 1 map[]
}
