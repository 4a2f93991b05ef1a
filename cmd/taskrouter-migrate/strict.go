package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// errStrict is -strict refusing input that the report only notes.
var errStrict = errors.New("-strict")

// strictKinds are the findings -strict refuses: input a team must fix, not a construct
// without a counterpart here.
var strictKinds = map[plan.Kind]bool{plan.KindUnparsable: true, plan.KindEmptyQueue: true}

// checkStrict returns, under -strict, an error listing each problem with its file and place:
// an empty workspace export, each unparsable expression and queue selecting no worker, and
// the problems found elsewhere (more, already naming their file).
func (pf *planFlags) checkStrict(ws *taskrouter.Workspace, p *plan.Plan, more ...string) error {
	if !pf.strict {
		return nil
	}
	var problems []string
	for _, empty := range []struct {
		n    int
		what string
	}{{len(ws.Workers), "workers"}, {len(ws.Queues), "task queues"}, {len(ws.Workflows), "workflows"}} {
		if empty.n == 0 {
			problems = append(problems, fmt.Sprintf("%s: no %s", pf.workspace, empty.what))
		}
	}
	for _, f := range p.Findings {
		if !strictKinds[f.Kind] {
			continue
		}
		msg := fmt.Sprintf("%s: %s: %s", pf.workspace, f.Where, f.Kind)
		if f.Expression != "" {
			msg += fmt.Sprintf(" %q", f.Expression)
		}
		problems = append(problems, msg+": "+f.Detail)
	}
	problems = append(problems, more...)
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d problems:\n  %s", errStrict, len(problems), strings.Join(problems, "\n  "))
}
