package expr

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnalyzeReadsEveryBranch: what a comparison reads counts wherever it sits (either side
// of OR and AND, under NOT, inside a list), and a cross-scope comparison needs a task key on
// one side and a worker key on the other.
func TestAnalyzeReadsEveryBranch(t *testing.T) {
	tests := []struct {
		src  string
		def  Scope
		want Usage
	}{
		{`a == 1 OR taskrouter.currentTime > 800`, ScopeWorker, Usage{Time: true}},
		{`taskrouter.currentTime > 800 OR a == 1`, ScopeWorker, Usage{Time: true}},
		{`a == 1 AND taskrouter.dayOfWeek == "Mon"`, ScopeWorker, Usage{Time: true}},
		{`NOT taskrouter.currentHour > 8`, ScopeWorker, Usage{Time: true}},
		{`a IN [1, taskrouter.currentMin]`, ScopeWorker, Usage{Time: true}},
		{`a == 1 OR skills HAS task.skill`, ScopeWorker, Usage{CrossScope: true}},
		{`task.skill IN worker.skills`, ScopeTask, Usage{CrossScope: true}},
		{`level > task.min`, ScopeWorker, Usage{CrossScope: true}},
		{`1 == task.x`, ScopeWorker, Usage{}},
		{`task.a == task.b`, ScopeWorker, Usage{}},
		{`worker.a == worker.b`, ScopeTask, Usage{}},
		{`a == 1 OR worker.contact_uri == "client:alice"`, ScopeWorker, Usage{KnownWorker: true}},
		{`worker.sid IN task.preferred`, ScopeWorker, Usage{CrossScope: true, KnownWorker: true}},
		{`id == "a1"`, ScopeWorker, Usage{KnownWorker: true}},
		{`routing.sid == "x"`, ScopeWorker, Usage{}},
		{`sid == "WK1"`, ScopeTask, Usage{}},
	}
	for _, tt := range tests {
		n, err := Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, Analyze(n, tt.def)); diff != "" {
			t.Errorf("Analyze(%s, %q) (-want +got):\n%s", tt.src, tt.def, diff)
		}
	}
}
