package match_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskrouting/taskrouting-go/internal/conformance"
)

// TestPlatformReplaysEngineRecording plays every scenario of the recorded corpus (the
// platform engine's own decisions, conformance.RecordingFile, written by `conform -record`)
// through the reference matcher under the platform rules, and requires each step to decide
// what the engine decided: the live conformance suite's bar, without Node or Redis, so a
// change to a platform rule that no hand-written test pins still fails here. It runs under
// -short too.
func TestPlatformReplaysEngineRecording(t *testing.T) {
	recs, err := conformance.ReadRecordingFile("../..")
	if err != nil {
		t.Fatalf("reading the recorded corpus: %v", err)
	}
	if len(recs) == 0 {
		t.Fatal("the recorded corpus is empty")
	}
	for _, rec := range recs {
		t.Run(rec.Name(), func(t *testing.T) {
			t.Parallel()
			checkReplay(t, rec, conformance.PlayGo(rec.Scenario))
		})
	}
}

// checkReplay fails at the first step on which got differs from the engine's recorded trace;
// the steps after it are not compared, since the two states differ from there.
func checkReplay(t *testing.T, rec conformance.Recording, got []conformance.StepTrace) {
	t.Helper()
	if len(got) != len(rec.Trace) {
		t.Errorf("%s: %d steps played, the engine recorded %d", rec.Name(), len(got), len(rec.Trace))
	}
	for i := range min(len(got), len(rec.Trace)) {
		want, have := rec.Trace[i].Canonical(), got[i].Canonical()
		if diff := cmp.Diff(want, have); diff != "" {
			t.Fatalf("%s step %d (%s) decides otherwise than %s %s (-engine +go):\n%s\nreplay with the engine: %s",
				rec.Name(), i+1, rec.Scenario.Steps[i], conformance.EnginePackage, rec.Engine, diff, rec.Scenario.JSON())
		}
	}
}
