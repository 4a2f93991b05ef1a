package match

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForgetRemovesOnlyFinishedTasks: Forget removes completed, cancelled, failed and
// expired tasks from every read, skips live and unknown ones, and a forgotten id can be
// created again.
func TestForgetRemovesOnlyFinishedTasks(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_000)
	e := New(Config{})
	yes := true
	_, err := e.UpsertWorker(at, WorkerInput{ID: "w1", Tags: []string{"a"}, Available: &yes})
	require.NoError(t, err)
	for _, id := range []string{"done", "cancelled", "failed", "pending", "queued"} {
		_, err := e.CreateTask(at, TaskInput{ID: id, Tags: []string{"a"}})
		require.NoError(t, err)
	}
	_, err = e.Accept(at, "done", "w1")
	require.NoError(t, err)
	_, err = e.Complete(at, "done", "w1", nil)
	require.NoError(t, err)
	_, err = e.CancelTask(at, "cancelled")
	require.NoError(t, err)
	_, err = e.Accept(at, "failed", "w1")
	require.NoError(t, err)
	_, err = e.Fail(at, "failed", "w1", "broke")
	require.NoError(t, err)
	_, err = e.CreateTask(at, TaskInput{ID: "expired", Tags: []string{"nobody"}, Clocks: &Clocks{ExpireAfter: time.Minute}})
	require.NoError(t, err)
	e.Advance(at.Add(2 * time.Minute))
	tk, err := e.Task("expired")
	require.NoError(t, err)
	require.Equal(t, StatusExpired, tk.Status)

	n := e.Forget([]string{"done", "cancelled", "failed", "expired", "pending", "queued", "unknown"})
	assert.Equal(t, 4, n)
	for _, id := range []string{"done", "cancelled", "failed", "expired"} {
		_, err := e.Task(id)
		var nf *NotFoundError
		assert.True(t, errors.As(err, &nf), "%s: %v", id, err)
	}
	page, err := e.Tasks(TaskQuery{Status: FilterAll})
	require.NoError(t, err)
	var ids []string
	for _, tk := range page.Tasks {
		ids = append(ids, tk.ID)
	}
	if diff := cmp.Diff([]string{"pending", "queued"}, ids); diff != "" {
		t.Errorf("tasks after Forget (-want +got):\n%s", diff)
	}
	assert.Equal(t, map[Status]int{StatusPending: 2}, e.Census().ByStatus, "the census counts the tasks held")
	_, err = e.CreateTask(at, TaskInput{ID: "done", Tags: []string{"a"}})
	assert.NoError(t, err, "a forgotten id is free again")
}

// TestForgetChangesNoDecision: an engine that forgets its finished tasks as it goes decides
// exactly as one that keeps them.
func TestForgetChangesNoDecision(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			run := func(forget bool) []string {
				at := time.UnixMilli(1_700_000_000_000)
				e := New(Config{Rules: rules, Seed: 7})
				yes := true
				for w := range 3 {
					_, err := e.UpsertWorker(at, WorkerInput{ID: fmt.Sprintf("w%d", w), Tags: []string{"a", fmt.Sprintf("t%d", w)}, Available: &yes})
					require.NoError(t, err)
				}
				var log []string
				for i := range 60 {
					at = at.Add(time.Second)
					id := fmt.Sprintf("task%02d", i)
					res, err := e.CreateTask(at, TaskInput{ID: id, Tags: []string{"a"}, Priority: float64(i % 7)})
					require.NoError(t, err)
					for _, ev := range res.Events {
						log = append(log, fmt.Sprintf("%s %s %s", ev.Kind, ev.TaskID, ev.WorkerID))
					}
					if i%3 == 0 {
						continue // left offered
					}
					tk, _ := e.Task(id)
					if tk.Status != StatusPending {
						continue
					}
					res, err = e.Accept(at, id, tk.WorkerID)
					require.NoError(t, err)
					res2, err := e.Complete(at, id, tk.WorkerID, nil)
					require.NoError(t, err)
					for _, ev := range append(res.Events, res2.Events...) {
						log = append(log, fmt.Sprintf("%s %s %s", ev.Kind, ev.TaskID, ev.WorkerID))
					}
					if forget {
						e.Forget([]string{id})
					}
				}
				res := e.Advance(at.Add(time.Hour))
				for _, ev := range res.Events {
					log = append(log, fmt.Sprintf("%s %s %s", ev.Kind, ev.TaskID, ev.WorkerID))
				}
				return log
			}
			if diff := cmp.Diff(run(false), run(true)); diff != "" {
				t.Errorf("events with Forget differ (-kept +forgotten):\n%s", diff)
			}
		})
	}
}

// TestForgetDropsAnOpenLearningDecision: under RulesPlatform with learning ranks, a task
// whose shelf life ran out while it was offered ends with its decision still open (no
// outcome came); Forget drops that decision with the task, so a forgotten task keeps
// nothing in the model's open decisions.
func TestForgetDropsAnOpenLearningDecision(t *testing.T) {
	h := newHarness(t, learnCfg(ptr(0.0), 1))
	h.worker("w1", "a")
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: 10 * time.Second}})
	h.task("t2", "a") // offered too, and stays open
	h.advance(20 * time.Second)
	tk, err := h.e.Task("t1")
	require.NoError(t, err)
	require.Equal(t, StatusExpired, tk.Status)
	open := func() []string {
		var ids []string
		for x := range h.e.plat.learn.open {
			ids = append(ids, x.id)
		}
		return ids
	}
	require.ElementsMatch(t, []string{"t1", "t2"}, open(), "precondition: open decisions")
	assert.Equal(t, 1, h.e.Forget([]string{"t1", "t2"}), "forgotten")
	assert.Equal(t, []string{"t2"}, open(), "open decisions after Forget")
}
