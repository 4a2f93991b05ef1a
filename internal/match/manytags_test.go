package match

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWorkerFindsWaitingTasksOfManyTags: under the every-tag rules a worker that becomes
// available finds the waiting tasks whose every tag it carries, however many tags they have
// (tag sets of up to three are looked up by a packed key, larger ones by a string key), and
// not the tasks with a tag it lacks.
func TestWorkerFindsWaitingTasksOfManyTags(t *testing.T) {
	sets := [][]string{
		{"a"},
		{"a", "b"},
		{"a", "b", "c"},
		{"a", "b", "c", "d"},
		{"a", "b", "c", "d", "e"},
		{"a", "b", "c", "d", "e", "f"},
	}
	for _, tags := range sets {
		for _, lacks := range []bool{false, true} {
			for _, crowded := range []bool{false, true} {
				name := fmt.Sprint(len(tags), " tags")
				task := tags
				want := map[string]string{"t1": "pending:w1"}
				if lacks {
					name += ", one the worker lacks"
					task = append(slices.Clone(tags[1:]), "z")
					want["t1"] = "queued"
				}
				if crowded {
					name += ", among many groups"
				}
				t.Run(name, func(t *testing.T) {
					h := newHarness(t, Config{})
					h.task("t1", task...)
					if crowded {
						// Many groups under the worker's first tag that it cannot serve (a
						// threshold above its weight of 1) make the lookup of its tag
						// subsets cheaper than a walk of those groups.
						for i := range 70 {
							id := fmt.Sprint("pad", i)
							h.taskIn(TaskInput{ID: id, Tags: tags[:1], SkillThresholds: map[string]float64{tags[0]: float64(2 + i)}})
							want[id] = "queued"
						}
					}
					h.worker("w1", tags...)
					if diff := cmp.Diff(want, h.state()); diff != "" {
						t.Errorf("task of tags %v, worker of tags %v (-want +got):\n%s", task, tags, diff)
					}
				})
			}
		}
	}
}
