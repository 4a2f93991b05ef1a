package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWorkerExtraStoredAndKept: what a caller stores with a worker (WorkerInput.Extra) is
// echoed by Worker untouched; an upsert or patch without it keeps the old value, one with
// it replaces the value, under both rule sets.
func TestWorkerExtraStoredAndKept(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules})
			extra := func() any {
				t.Helper()
				d, err := h.e.Worker("w1")
				if err != nil {
					t.Fatal(err)
				}
				return d.Extra
			}
			var got []any
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}})
			got = append(got, extra())
			h.workerIn(WorkerInput{ID: "w1", Extra: map[string]any{"meta": "first"}})
			got = append(got, extra())
			h.workerIn(WorkerInput{ID: "w1", Available: ptr(true)})
			got = append(got, extra())
			h.ok(h.e.PatchWorker(h.step(), "w1", WorkerInput{Tags: []string{"b"}}))
			got = append(got, extra())
			h.ok(h.e.PatchWorker(h.step(), "w1", WorkerInput{Extra: "second"}))
			got = append(got, extra())
			want := []any{nil, map[string]any{"meta": "first"}, map[string]any{"meta": "first"}, map[string]any{"meta": "first"}, "second"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Extra after each write (-want +got):\n%s", diff)
			}
		})
	}
}
