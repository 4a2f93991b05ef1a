package taskrouting_test

import (
	"context"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

func ExampleDecisionsService_Accept() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english") // offered to agent_1: a task.matched event
	ctx := context.Background()

	ref, err := c.Decisions.Accept(ctx, "task_1", "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.ID, ref.Status)
	// Output:
	// task_1 accepted
}

func ExampleDecisionsService_Reject() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.worker("agent_2", "english")
	sb.task("task_1", 0, "english") // offered to agent_1
	ctx := context.Background()

	ref, err := c.Decisions.Reject(ctx, "task_1", "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.Status)

	// agent_1 never gets the task again; the matcher offers it to agent_2 at once.
	task, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status, task.WorkerID)
	// Output:
	// queued
	// pending agent_2
}

func ExampleDecisionsService_Complete() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	ctx := context.Background()
	if _, err := c.Decisions.Accept(ctx, "task_1", "agent_1"); err != nil {
		panic(err)
	}

	// The result is passed on in the task.completed event.
	ref, err := c.Decisions.Complete(ctx, "task_1", "agent_1", map[string]any{"resolved": true})
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.Status)
	events := sb.srv.Events()
	fmt.Println(string(events[len(events)-1].Payload))
	// Output:
	// completed
	// {"event":"task.completed","id":"evt_3","createdAt":1763700000000,"taskId":"task_1","workerId":"agent_1","priority":0,"tags":["english"],"result":{"resolved":true}}
}

func ExampleDecisionsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.worker("agent_2", "english")
	ctx := context.Background()
	_, err := c.Workers.Patch(ctx, "agent_2", taskrouting.PatchWorkerParams{RoutingWeights: map[string]float64{"english": 3}})
	if err != nil {
		panic(err)
	}
	sb.task("task_1", 0, "english")

	// Why did task_1 go where it went?
	decisions, err := c.Decisions.List(ctx, taskrouting.ListDecisionsParams{TaskID: "task_1"})
	if err != nil {
		panic(err)
	}
	for _, d := range decisions {
		fmt.Println(d.ID, d.TaskID, "to", d.WorkerID, "mode", d.Mode, "at", d.MatchedAt.Format("15:04"))
		for _, cand := range d.Candidates {
			fmt.Printf("  %s chosen=%t eligible=%t score=%g\n", cand.WorkerID, cand.Chosen, cand.Eligible, cand.Score)
			for _, r := range cand.Reasons {
				fmt.Println("   ", string(r.Raw)) // kind-specific members; kinds are added over time
			}
		}
	}
	// Output:
	// dec_1 task_1 to agent_2 mode best-match at 04:40
	//   agent_2 chosen=true eligible=true score=3
	//     {"kind":"tagWeight","tag":"english","weight":3}
	//   agent_1 chosen=false eligible=true score=1
	//     {"kind":"tagWeight","tag":"english","weight":1}
}

func ExampleLearningService_Status() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	st, err := c.Learning.Status(ctx)
	if err != nil {
		panic(err)
	}
	// Off, as on the platform, until the server ranks by learning (mockserver -learning-rank).
	fmt.Println("enabled:", st.Enabled, "shadow:", st.ShadowMode, "model size:", st.ModelSize)
	// Output:
	// enabled: false shadow: true model size: 0
}

func ExampleLearningService_WorkerStats() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	ctx := context.Background()
	// Accepting and completing are rewards for agent_1 on "english".
	if _, err := c.Decisions.Accept(ctx, "task_1", "agent_1"); err != nil {
		panic(err)
	}
	if _, err := c.Decisions.Complete(ctx, "task_1", "agent_1", nil); err != nil {
		panic(err)
	}

	stats, err := c.Learning.WorkerStats(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	for _, s := range stats.Skills {
		fmt.Printf("%s: %d outcomes, mean reward %.2f\n", s.Tag, s.Count, s.MeanReward)
	}
	// Output:
	// english: 2 outcomes, mean reward 1.50
}
