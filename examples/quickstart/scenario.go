package main

import taskrouting "github.com/taskrouting/taskrouting-go"

// The scenario: four workers, six tasks. Every worker holds at most one offer at a time
// (maxBacklogSize 1), so later tasks wait in the queue and show that the most urgent waiting
// task is offered first, whatever its creation order.
//
// Under the platform's rules one shared tag is enough for a worker to be offered a task, so
// tags alone would send the English "Password reset" (english+technical) to chloe, who speaks
// Spanish, through her technical tag. Each task therefore requires its language as a
// catalogue skill (requiredSkills): a worker must hold every required skill, while the tags
// still decide who is a candidate and how each one scores.

type workerSpec struct {
	ID   string
	Tags []string
	// Weights is the per-tag proficiency. A worker with routing weights reaches only its
	// weighted tags: its other tags no longer make it a candidate.
	Weights map[string]float64
	// Languages are catalogue skills the worker holds (level 1); tasks require theirs.
	Languages []string
	Available bool
	// RejectFirst makes the worker turn down the first offer it gets, to show the rejection
	// veto: the task is re-routed and never offered to this worker again.
	RejectFirst bool
}

type taskSpec struct {
	Title    string
	Tags     []string
	Language string // the catalogue skill the task requires
	Priority float64
}

// languages are the catalogue skills of the scenario.
var languages = []string{"english", "spanish"}

func scenarioWorkers() []workerSpec {
	return []workerSpec{
		{ID: "ana", Tags: []string{"english", "billing"}, Weights: map[string]float64{"billing": 3, "english": 2},
			Languages: []string{"english"}, Available: true, RejectFirst: true},
		{ID: "ben", Tags: []string{"english", "billing", "technical"}, Languages: []string{"english"}, Available: true},
		{ID: "chloe", Tags: []string{"spanish", "technical"}, Weights: map[string]float64{"technical": 3, "spanish": 2},
			Languages: []string{"spanish"}, Available: true},
		// dev is the strongest technical worker, but off shift: he is offered nothing. His
		// weights name only technical, so his english tag does not make him a candidate.
		{ID: "dev", Tags: []string{"english", "technical"}, Weights: map[string]float64{"technical": 5},
			Languages: []string{"english"}, Available: false},
	}
}

func scenarioTasks() []taskSpec {
	return []taskSpec{
		{Title: "Password reset", Tags: []string{"english", "technical"}, Language: "english", Priority: 10},
		{Title: "Refund for order 1182", Tags: []string{"english", "billing"}, Language: "english", Priority: 50},
		{Title: "El router se reinicia", Tags: []string{"spanish", "technical"}, Language: "spanish", Priority: 30},
		{Title: "Invoice shows wrong VAT", Tags: []string{"english", "billing"}, Language: "english", Priority: 20},
		{Title: "Checkout is down", Tags: []string{"english", "technical"}, Language: "english", Priority: 90},
		{Title: "Upgrade to annual plan", Tags: []string{"english", "billing"}, Language: "english", Priority: 40},
	}
}

// upsertParams turns a worker of the scenario into the POST /workers body. scopeTag, when not
// empty, prefixes the worker's tags, weights and skills (see the live run in the package comment).
func (w workerSpec) upsertParams(id, scopeTag string) taskrouting.UpsertWorkerParams {
	var weights map[string]float64
	if w.Weights != nil {
		weights = map[string]float64{}
		for k, v := range w.Weights {
			weights[scoped(scopeTag, []string{k})[0]] = v
		}
	}
	var skills []taskrouting.SkillAssignment
	for _, key := range scoped(scopeTag, w.Languages) {
		skills = append(skills, taskrouting.SkillAssignment{SkillID: key, Level: 1})
	}
	return taskrouting.UpsertWorkerParams{
		ID:             id,
		Tags:           scoped(scopeTag, w.Tags),
		RoutingWeights: weights,
		Skills:         skills,
		MaxBacklogSize: taskrouting.Ptr(1),
		Available:      taskrouting.Ptr(w.Available),
	}
}
