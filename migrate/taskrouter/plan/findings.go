package plan

import (
	"slices"
)

// Kind names a construct the plan could not translate (or translated with a change the
// user must know about).
type Kind string

// Finding kinds.
const (
	// KindKnownWorker: a target routes to a named worker (known_worker_sid,
	// known_worker_friendly_name, or an expression on worker.sid/friendly_name).
	KindKnownWorker Kind = "knownWorker"
	// KindTaskVsWorker: an expression compares task and worker attributes.
	KindTaskVsWorker Kind = "taskVsWorker"
	// KindTimeOfDay: an expression reads taskrouter.currentTime, currentHour, currentMin or
	// dayOfWeek.
	KindTimeOfDay Kind = "timeOfDay"
	// KindActivity: a worker expression reads the worker's activity.
	KindActivity Kind = "activity"
	// KindTaskOrder: a LIFO queue.
	KindTaskOrder Kind = "taskOrder"
	// KindMaxReserved: max_reserved_workers above 1.
	KindMaxReserved Kind = "maxReservedWorkers"
	// KindSkipIf and KindOrderBy: target options without a counterpart.
	KindSkipIf  Kind = "skipIf"
	KindOrderBy Kind = "orderBy"
	// KindPriorityExpr: a target priority that is not a number.
	KindPriorityExpr Kind = "priorityExpression"
	// KindUnevenPriority: target priorities that do not step evenly.
	KindUnevenPriority Kind = "unevenPriority"
	// KindEmptyQueue: a queue (or narrowed queue) that selects no worker.
	KindEmptyQueue Kind = "emptyQueue"
	// KindWorkerTagLimit: a worker would carry more than 64 tags.
	KindWorkerTagLimit Kind = "workerTagLimit"
	// KindUnparsable: an expression that does not parse.
	KindUnparsable Kind = "unparsable"
	// KindRulesMismatch: after falling back to a queue tag, the service's matching rules
	// still select other workers than the expression (shadow.Verify).
	KindRulesMismatch Kind = "rulesMismatch"
	// KindSkillTermsFallback: a segment's skill tags did not select its workers under the
	// service's matching rules (any shared tag, say, instead of every tag), so it uses one
	// queue tag instead and its workers carry the queue's name.
	KindSkillTermsFallback Kind = "skillTermsFallback"
)

// Finding is one construct of the workspace the plan could not express as it is.
type Finding struct {
	Kind       Kind     `json:"kind"`
	Where      string   `json:"where"`
	Expression string   `json:"expression,omitempty"`
	Detail     string   `json:"detail"`
	Queues     []string `json:"queues,omitempty"`    // task queue sids affected
	WorkerIDs  []string `json:"workerIds,omitempty"` // workers affected beyond the queues' members
}

// KindSummary counts one kind's findings and what they affect.
type KindSummary struct {
	Kind     Kind `json:"kind"`
	Findings int  `json:"findings"`
	Queues   int  `json:"queues"`  // distinct task queues affected
	Workers  int  `json:"workers"` // distinct workers: members of those queues, and any named
}

// AddFinding records a finding made outside Build (shadow.Verify's mismatches).
func (p *Plan) AddFinding(f Finding) { p.Findings = append(p.Findings, f) }

// Summary counts the findings by kind, in kind order, with the distinct queues and workers
// each kind affects.
func (p *Plan) Summary() []KindSummary {
	members := map[string][]string{}
	for _, s := range p.Segments {
		if s.ID == s.Queue {
			members[s.Queue] = s.Workers
		}
	}
	type acc struct {
		n       int
		queues  map[string]bool
		workers map[string]bool
	}
	by := map[Kind]*acc{}
	for _, f := range p.Findings {
		a := by[f.Kind]
		if a == nil {
			a = &acc{queues: map[string]bool{}, workers: map[string]bool{}}
			by[f.Kind] = a
		}
		a.n++
		for _, q := range f.Queues {
			a.queues[q] = true
		}
		for _, w := range f.WorkerIDs {
			a.workers[w] = true
		}
	}
	var out []KindSummary
	for k, a := range by {
		// Members are added once per queue and kind, not once per finding: many findings
		// on one large queue would otherwise cost findings × members.
		for q := range a.queues {
			for _, w := range members[q] {
				a.workers[w] = true
			}
		}
		out = append(out, KindSummary{Kind: k, Findings: a.n, Queues: len(a.queues), Workers: len(a.workers)})
	}
	slices.SortFunc(out, func(a, b KindSummary) int {
		if a.Kind < b.Kind {
			return -1
		}
		if a.Kind > b.Kind {
			return 1
		}
		return 0
	})
	return out
}
