package mockserver_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskrouting/taskrouting-go/internal/conformance"
)

// replayedPerFamily is how many of each family's recorded scenarios the server replays (the
// first ones, by index): over loopback HTTP each step costs a request and its validation, so
// the whole corpus would take several times the go player's replay
// (internal/match TestPlatformReplaysEngineRecording, which plays all of it).
const replayedPerFamily = 4

// TestServerReplaysEngineRecording plays the first replayedPerFamily recorded scenarios of
// each family (conformance.RecordingFile: the platform engine's own decisions) through the
// mock server as a user's test reaches it: the server's defaults apart from what the
// scenario sets, listening on loopback, every command an HTTP request to its API, the clock
// a ManualClock, the decisions read from its events. Each step must decide what the engine
// decided.
func TestServerReplaysEngineRecording(t *testing.T) {
	recs, err := conformance.ReadRecordingFile("..")
	if err != nil {
		t.Fatalf("reading the recorded corpus: %v", err)
	}
	played := 0
	for _, rec := range recs {
		if rec.Index >= replayedPerFamily {
			continue
		}
		played++
		t.Run(rec.Name(), func(t *testing.T) {
			t.Parallel()
			got, err := conformance.PlayServerLoopback(rec.Scenario)
			if err != nil {
				t.Fatalf("%s: %v", rec.Name(), err)
			}
			if len(got) != len(rec.Trace) {
				t.Errorf("%s: %d steps played, the engine recorded %d", rec.Name(), len(got), len(rec.Trace))
			}
			for i := range min(len(got), len(rec.Trace)) {
				if diff := cmp.Diff(rec.Trace[i].Canonical(), got[i].Canonical()); diff != "" {
					t.Fatalf("%s step %d (%s) decides otherwise than %s %s (-engine +server):\n%s\nreplay with the engine: %s",
						rec.Name(), i+1, rec.Scenario.Steps[i], conformance.EnginePackage, rec.Engine, diff, rec.Scenario.JSON())
				}
			}
		})
	}
	if played == 0 {
		t.Fatal("the recorded corpus holds no scenario to replay")
	}
}
