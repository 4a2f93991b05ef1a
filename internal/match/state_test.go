package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestStateIsWhatCommandsLeft reads an engine's State after a few commands: offers in offer
// order, tasks in creation order, learned values by worker and tag, and the sequences. The
// State is the one place a snapshot reads the engine; what it leaves out a snapshot cannot
// check.
func TestStateIsWhatCommandsLeft(t *testing.T) {
	t0 := time.Unix(1_763_700_000, 0).UTC()
	e := New(Config{})
	must := func(_ Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	avail := true
	must(e.UpsertWorker(t0, WorkerInput{ID: "bo", Tags: []string{"en", "fr"}, Available: &avail}))
	must(e.UpsertWorker(t0, WorkerInput{ID: "ana", Tags: []string{"fr"}}))
	must(e.CreateTask(t0.Add(time.Second), TaskInput{ID: "t1", Tags: []string{"fr", "en"}, Priority: 2}))
	must(e.CreateTask(t0.Add(2*time.Second), TaskInput{ID: "t2", Tags: []string{"en"}}))
	must(e.Accept(t0.Add(3*time.Second), "t1", "bo"))

	got := e.State()
	if !got.Now.Equal(t0.Add(3 * time.Second)) {
		t.Errorf("Now = %v", got.Now)
	}
	type worker struct {
		ID     string
		Offers []string
	}
	var workers []worker
	for _, w := range got.Workers {
		workers = append(workers, worker{w.ID, w.Offers})
	}
	if d := cmp.Diff([]worker{{"ana", []string{}}, {"bo", []string{"t2"}}}, workers); d != "" {
		t.Errorf("workers (-want +got):\n%s", d)
	}
	type task struct {
		ID       string
		Status   Status
		WorkerID string
	}
	var tasks []task
	for _, tk := range got.Tasks {
		tasks = append(tasks, task{tk.ID, tk.Status, tk.WorkerID})
	}
	if d := cmp.Diff([]task{{"t1", StatusAccepted, "bo"}, {"t2", StatusPending, "bo"}}, tasks); d != "" {
		t.Errorf("tasks (-want +got):\n%s", d)
	}
	want := []LearnedValue{
		{WorkerID: "bo", Tag: "en", Count: 1, DecayedCount: 1, DecayedSum: RewardAccept, Last: t0.Add(3 * time.Second)},
		{WorkerID: "bo", Tag: "fr", Count: 1, DecayedCount: 1, DecayedSum: RewardAccept, Last: t0.Add(3 * time.Second)},
	}
	if d := cmp.Diff(want, got.Learned, cmpopts.EquateApproxTime(0)); d != "" {
		t.Errorf("learned (-want +got):\n%s", d)
	}
	if got.EventSeq != 3 || got.DecisionSeq != 2 {
		t.Errorf("sequences: events %d, decisions %d; want 3 and 2", got.EventSeq, got.DecisionSeq)
	}
	if got.LearnTotals.Workers != 1 || got.LearnTotals.Pairs != 2 || got.LearnTotals.Outcomes != 1 {
		t.Errorf("learning totals %+v", got.LearnTotals)
	}
}
