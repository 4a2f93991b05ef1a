package conformance

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// The engine timing replays BenchmarkScale's workload (internal/match/bench_test.go): 300 tags
// drawn Zipf(1.1); each worker carries 3-8 of them; each task 1-3 tags and priority 0-2; the
// workers are registered, then queued + workers×backlog tasks are created, then every worker
// comes online and fills its backlog. The generator below is that workload's, seed for seed,
// so both engines see the same workers and tasks. The engine's backlogs are filled with the
// very offers the benchmark's loading makes (by assignToUser): filling them with
// the engine's own passes takes minutes per pass at this size, because every user's window
// holds the same 50 low-ranked tasks and each pass settles few of them.
const benchTags = 300

type benchWorkload struct {
	rng  *rand.Rand
	zipf *rand.Zipf
	n    int
}

func newBenchWorkload(seed uint64) *benchWorkload {
	rng := rand.New(rand.NewPCG(seed, 42))
	return &benchWorkload{rng: rng, zipf: rand.NewZipf(rng, 1.1, 1, benchTags-1)}
}

func (w *benchWorkload) tags(lo, hi int) []string {
	n := lo + w.rng.IntN(hi-lo+1)
	out := make([]string, 0, n)
	for len(out) < n {
		tag := "tag" + strconv.FormatUint(w.zipf.Uint64(), 10)
		if !slices.Contains(out, tag) {
			out = append(out, tag)
		}
	}
	return out
}

// BenchWorker and BenchTask are the engine player's input.
type BenchWorker struct {
	ID   string   `json:"id"`
	Tags []string `json:"tags"`
}

// BenchTask is one task of the timed workload.
type BenchTask struct {
	ID       string   `json:"id"`
	Tags     []string `json:"tags"`
	Priority float64  `json:"priority"`
}

func (w *benchWorkload) task() BenchTask {
	w.n++
	return BenchTask{ID: "task" + strconv.Itoa(w.n), Tags: w.tags(1, 3), Priority: float64(w.rng.IntN(3))}
}

// BenchRequest is what the engine player loads and times.
type BenchRequest struct {
	Options Options       `json:"options"`
	Workers []BenchWorker `json:"workers"`
	Tasks   []BenchTask   `json:"tasks"`
	// Holds lists, per worker, the tasks it holds offers for once filled.
	Holds      map[string][]string `json:"holds"`
	Probes     []BenchTask         `json:"probes"`
	FreeProbes int                 `json:"freeProbes"`
}

// BenchResult is what the engine player measured, in milliseconds.
type BenchResult struct {
	LoadMs           float64   `json:"loadMs"`
	FillMs           float64   `json:"fillMs"`
	CreateAndMatchMs []float64 `json:"createAndMatchMs"`
	FreeCapacityMs   []float64 `json:"freeCapacityMs"`
	Queued           int       `json:"queued"`
}

// NewBenchRequest builds the BenchmarkScale workload for the given size: workers, then
// queued + workers×backlog tasks, loaded into the reference matcher under the platform rules
// as the benchmark loads them to learn which offers fill each backlog, then probes more tasks for the timed
// create-and-match passes and as many timed accept-and-match passes.
func NewBenchRequest(workers, queued, probes int, fairness string) (BenchRequest, error) {
	o := Options{Fairness: fairness}.Normalized()
	wl := newBenchWorkload(1)
	req := BenchRequest{Options: o, FreeProbes: probes, Holds: map[string][]string{}}
	// The offers that fill the backlogs are those BenchmarkScale/<size>/platform/... loads:
	// the platform rules (the engine's own), each worker coming online in turn and filling
	// its backlog in its pass, so both sides start from the same state.
	e := match.New(match.Config{Rules: match.RulesPlatform, DefaultMaxBacklog: o.Backlog, OfferTimeout: time.Hour,
		Learning: match.LearningConfig{Disabled: true}})
	now := scenarioEpoch
	tick := func() time.Time { now = now.Add(time.Microsecond); return now }
	for i := range workers {
		w := BenchWorker{ID: "worker" + strconv.Itoa(i), Tags: wl.tags(3, 8)}
		req.Workers = append(req.Workers, w)
		if _, err := e.UpsertWorker(tick(), match.WorkerInput{ID: w.ID, Tags: w.Tags}); err != nil {
			return req, err
		}
	}
	for range queued + workers*o.Backlog {
		t := wl.task()
		req.Tasks = append(req.Tasks, t)
		if _, err := e.CreateTask(tick(), match.TaskInput{ID: t.ID, Tags: t.Tags, Priority: t.Priority}); err != nil {
			return req, err
		}
	}
	for _, w := range req.Workers {
		if _, err := e.SetAvailability(tick(), w.ID, true, false); err != nil {
			return req, err
		}
	}
	for _, w := range req.Workers {
		q, err := e.WorkerQueue(w.ID)
		if err != nil {
			return req, err
		}
		req.Holds[w.ID] = q
	}
	for range probes {
		req.Probes = append(req.Probes, wl.task())
	}
	return req, nil
}

// TimeEngine loads req into the engine and times its match passes.
func (r *Runner) TimeEngine(req BenchRequest) (BenchResult, error) {
	var answer struct {
		Bench BenchResult `json:"bench"`
	}
	err := r.request(map[string]any{"bench": req}, &answer)
	return answer.Bench, err
}
