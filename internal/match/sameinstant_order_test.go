package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTasksOfOneInstantKeepCreationOrder: under the every-tag rules, tasks of equal
// priority created in one clock instant are served in the order they were created, across
// tag groups too (docs/contract.md, "Order and choice").
func TestTasksOfOneInstantKeepCreationOrder(t *testing.T) {
	for _, order := range [][]string{{"b", "a", "a", "b"}, {"a", "b", "b", "a"}} {
		t.Run(order[0]+order[1]+order[2]+order[3], func(t *testing.T) {
			e := New(Config{Rules: RulesEveryTag})
			if _, err := e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a", "b"}, MaxBacklogSize: ptr(1)}); err != nil {
				t.Fatal(err)
			}
			ids := []string{"t4", "t3", "t2", "t1"} // ids against creation order
			for i, tag := range order {
				if _, err := e.CreateTask(t0, TaskInput{ID: ids[i], Tags: []string{tag}}); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			if _, err := e.SetAvailability(t0, "w1", true, false); err != nil {
				t.Fatal(err)
			}
			for range ids {
				tk, _ := e.WorkerQueue("w1")
				if len(tk) != 1 {
					t.Fatalf("queue %v", tk)
				}
				got = append(got, tk[0])
				if _, err := e.Reject(t0, tk[0], "w1"); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(ids, got); diff != "" {
				t.Errorf("offer order (-want +got):\n%s", diff)
			}
		})
	}
}
