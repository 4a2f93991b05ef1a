package main

import "fmt"

// bulkRows are the rows of BenchmarkBulkBackfill (root package): both backfills run in every
// iteration against a fresh mock server, so speedup is a ratio measured in one run.
var bulkRows = []row{
	{claim: "CreateAll speedup over one Create per task (single-s / bulk-s, same iteration)", impl: "BenchmarkBulkBackfill", unit: "speedup", target: atLeast(10)},
	{claim: "CreateAll wall time, 100,000 tasks", impl: "BenchmarkBulkBackfill", unit: "bulk-s"},
	{claim: "one Create per task, 64 goroutines, wall time", impl: "BenchmarkBulkBackfill", unit: "single-s"},
	{claim: "HTTP calls, CreateAll", impl: "BenchmarkBulkBackfill", unit: "bulk-calls"},
	{claim: "HTTP calls, one Create per task", impl: "BenchmarkBulkBackfill", unit: "single-calls"},
}

func meaningBulk(r *results) string {
	sp, ok1 := median(r, "BenchmarkBulkBackfill", "speedup")
	bc, ok2 := median(r, "BenchmarkBulkBackfill", "bulk-calls")
	sc, ok3 := median(r, "BenchmarkBulkBackfill", "single-calls")
	if !ok1 || !ok2 || !ok3 {
		return "The bulk backfill benchmark did not run."
	}
	return fmt.Sprintf("Loading 100,000 tasks into the mock server with `Tasks.CreateAll` (chunks of 200, 4 calls at once) "+
		"was %s× faster in wall time than one `Tasks.Create` per task from 64 goroutines, with %s HTTP calls instead of %s. "+
		"Both run over loopback against the same kind of fresh server, so the gap is per-call cost (HTTP, "+
		"idempotency, the request path) paid once per 200 tasks instead of once per task; over a real network, "+
		"where each call costs a round trip, the gap grows.", num(sp), num(bc), num(sc))
}
