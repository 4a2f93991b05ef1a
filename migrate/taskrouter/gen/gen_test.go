package gen

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
)

func TestWorkspaceSizes(t *testing.T) {
	ws, err := taskrouter.ParseWorkspace(Workspace(Config{Seed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	got := []int{len(ws.Workers), len(ws.Queues), len(ws.Workflows), len(ws.Activities)}
	if diff := cmp.Diff([]int{240, 30, 5, 4}, got); diff != "" {
		t.Errorf("workers, queues, workflows, activities (-want +got):\n%s", diff)
	}
}

func TestEventsAreDeterministicAndReadable(t *testing.T) {
	cfg := Config{Seed: 7, Workers: 60, Events: 3000}
	var a, b bytes.Buffer
	if err := Events(cfg, &a); err != nil {
		t.Fatal(err)
	}
	if err := Events(cfg, &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same seed made two different histories")
	}
	counts := map[string]int{}
	err := taskrouter.ReadEvents(bytes.NewReader(a.Bytes()), func(e taskrouter.Event) error {
		counts[e.Type]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != 3000 {
		t.Errorf("%d events, want 3000", total)
	}
	for _, typ := range []string{taskrouter.EventTaskCreated, taskrouter.EventReservationCreated, taskrouter.EventReservationAccepted,
		taskrouter.EventReservationRejected, taskrouter.EventReservationTimeout, taskrouter.EventTaskCompleted, taskrouter.EventWorkerActivityUpdate} {
		if counts[typ] == 0 {
			t.Errorf("no %s event in %v", typ, counts)
		}
	}
}
