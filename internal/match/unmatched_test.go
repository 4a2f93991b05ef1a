package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// nearLine is what a test compares of a NearWorker: who, how many tags, and the reason kinds
// that make it ineligible.
type nearLine struct {
	ID      string
	Carried int
	Lacks   []string
}

func nearLines(u Unmatched) []nearLine {
	out := []nearLine{}
	for _, n := range u.Nearest {
		l := nearLine{ID: n.WorkerID, Carried: n.Carried}
		for _, r := range n.Reasons {
			if r.Kind == ReasonTagWeight || r.Kind == ReasonLearningBoost {
				continue
			}
			l.Lacks = append(l.Lacks, string(r.Kind)+":"+r.Tag)
		}
		out = append(out, l)
	}
	return out
}

// TestWhyUnmatched: a queued task's explanation names the tags nobody carries and the
// nearest workers with what each lacks; a matched task has none.
func TestWhyUnmatched(t *testing.T) {
	cases := []struct {
		name      string
		tags      []string
		uncarried []string
		near      []nearLine
	}{
		{name: "misspelt tag nobody carries", tags: []string{"englsh"}, uncarried: []string{"englsh"}, near: []nearLine{}},
		{name: "misspelt tag beside a carried one", tags: []string{"billing", "englsh"}, uncarried: []string{"englsh"},
			near: []nearLine{{ID: "ana", Carried: 1, Lacks: []string{"backlogFull:", "missingTag:englsh"}}, {ID: "off", Carried: 1, Lacks: []string{"unavailable:", "missingTag:englsh"}}}},
		{name: "carried, but the carriers are busy or away", tags: []string{"english", "billing"},
			near: []nearLine{{ID: "ana", Carried: 2, Lacks: []string{"backlogFull:"}}, {ID: "off", Carried: 2, Lacks: []string{"unavailable:"}}, {ID: "ben", Carried: 1, Lacks: []string{"missingTag:billing"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			h.workerIn(WorkerInput{ID: "ana", Tags: []string{"english", "billing"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
			h.workerIn(WorkerInput{ID: "ben", Tags: []string{"english"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
			h.workerIn(WorkerInput{ID: "off", Tags: []string{"english", "billing"}, Available: ptr(false)})
			h.taskIn(TaskInput{ID: "busy_ana", Tags: []string{"billing"}})
			h.taskIn(TaskInput{ID: "t", Tags: tc.tags})
			task, err := h.e.Task("t")
			require.NoError(t, err)
			require.Equal(t, StatusQueued, task.Status, "precondition: the task waits")

			u, err := h.e.WhyUnmatched("t", 5)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.uncarried, u.UncarriedTags); diff != "" {
				t.Errorf("uncarried tags (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.near, nearLines(u)); diff != "" {
				t.Errorf("nearest workers (-want +got):\n%s", diff)
			}
			dry, err := h.e.NearestWorkers(SuggestInput{Tags: tc.tags}, 5)
			require.NoError(t, err)
			if diff := cmp.Diff(u, dry); diff != "" {
				t.Errorf("the dry run disagrees with the task's read (-task +dry):\n%s", diff)
			}
		})
	}
}

func TestWhyUnmatchedOnlyForQueuedTasks(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("ana", "english")
	h.task("t", "english")
	u, err := h.e.WhyUnmatched("t", 5)
	require.NoError(t, err)
	require.Equal(t, Unmatched{}, u, "a pending task needs no explanation")
	_, err = h.e.WhyUnmatched("nope", 5)
	require.Error(t, err)
}

func TestNearestWorkersIsBounded(t *testing.T) {
	h := newHarness(t, Config{})
	for _, id := range []string{"w4", "w2", "w3", "w1"} {
		h.workerIn(WorkerInput{ID: id, Tags: []string{"a"}, Available: ptr(false)})
	}
	u, err := h.e.NearestWorkers(SuggestInput{Tags: []string{"a", "zz"}}, 2)
	require.NoError(t, err)
	want := []nearLine{{ID: "w1", Carried: 1, Lacks: []string{"unavailable:", "missingTag:zz"}}, {ID: "w2", Carried: 1, Lacks: []string{"unavailable:", "missingTag:zz"}}}
	if diff := cmp.Diff(want, nearLines(u)); diff != "" {
		t.Errorf("nearest (-want +got):\n%s", diff)
	}
}
