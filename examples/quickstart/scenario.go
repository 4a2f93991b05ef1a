package main

import taskrouting "github.com/taskrouting/taskrouting-go"

// The scenario: four workers, six tasks. Every worker holds at most one offer at a time
// (maxBacklogSize 1), so later tasks wait in the queue and show that the most urgent waiting
// task is offered first, whatever its creation order.

type workerSpec struct {
	ID        string
	Tags      []string
	Weights   map[string]float64 // per-tag proficiency; with weights, only weighted tags count
	Available bool
	// RejectFirst makes the worker turn down the first offer it gets, to show the rejection
	// veto: the task is re-routed and never offered to this worker again.
	RejectFirst bool
}

type taskSpec struct {
	Title    string
	Tags     []string
	Priority float64
}

func scenarioWorkers() []workerSpec {
	return []workerSpec{
		{ID: "ana", Tags: []string{"english", "billing"}, Weights: map[string]float64{"billing": 3, "english": 2}, Available: true, RejectFirst: true},
		{ID: "ben", Tags: []string{"english", "billing", "technical"}, Available: true},
		{ID: "chloe", Tags: []string{"spanish", "technical"}, Weights: map[string]float64{"technical": 3, "spanish": 2}, Available: true},
		// dev is the strongest technical worker, but off shift: he is offered nothing.
		{ID: "dev", Tags: []string{"english", "technical"}, Weights: map[string]float64{"technical": 5}, Available: false},
	}
}

func scenarioTasks() []taskSpec {
	return []taskSpec{
		{Title: "Password reset", Tags: []string{"english", "technical"}, Priority: 10},
		{Title: "Refund for order 1182", Tags: []string{"english", "billing"}, Priority: 50},
		{Title: "El router se reinicia", Tags: []string{"spanish", "technical"}, Priority: 30},
		{Title: "Invoice shows wrong VAT", Tags: []string{"english", "billing"}, Priority: 20},
		{Title: "Checkout is down", Tags: []string{"english", "technical"}, Priority: 90},
		{Title: "Upgrade to annual plan", Tags: []string{"english", "billing"}, Priority: 40},
	}
}

// upsertParams turns a worker of the scenario into the POST /workers body. scopeTag, when not
// empty, prefixes the worker's tags and weights (see the live run in the package comment).
func (w workerSpec) upsertParams(id, scopeTag string) taskrouting.UpsertWorkerParams {
	var weights map[string]float64
	if w.Weights != nil {
		weights = map[string]float64{}
		for k, v := range w.Weights {
			weights[scoped(scopeTag, []string{k})[0]] = v
		}
	}
	return taskrouting.UpsertWorkerParams{
		ID:             id,
		Tags:           scoped(scopeTag, w.Tags),
		RoutingWeights: weights,
		MaxBacklogSize: taskrouting.Ptr(1),
		Available:      taskrouting.Ptr(w.Available),
	}
}
