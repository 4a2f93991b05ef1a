package plan_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// Plan a workspace export, then turn a new task's attributes into a create call.
func ExampleBuild() {
	ws, err := taskrouter.ReadWorkspace("../testdata/workspace.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	p := plan.Build(ws, plan.Options{Now: now})
	for _, s := range p.Segments {
		fmt.Printf("%s: %s (%d workers)\n", s.QueueName, strings.Join(s.Tags, " "), len(s.Workers))
	}

	var attrs any
	_ = json.Unmarshal([]byte(`{"type":"billing","language":"es"}`), &attrs)
	rule, ok := p.Route("WWsupport", attrs, now)
	if !ok {
		return
	}
	create := rule.CreateParams(0)
	fmt.Printf("%q -> tags %v, priority %g, then %v after %s\n", rule.Filter, create.Tags, create.Priority,
		rule.Escalation.Tiers[1], rule.Escalation.RespondWithin)
	// Output:
	// Billing EN: skills:billing languages:en (2 workers)
	// Billing ES: skills:billing languages:es (2 workers)
	// Tech: queue:tech (3 workers)
	// Sales: skills:sales (2 workers)
	// Everyone: queue:everyone (6 workers)
	// "Billing Spanish" -> tags [skills:billing languages:es], priority 10, then [skills:billing languages:en] after 1m0s
}
