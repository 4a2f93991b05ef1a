package conformance

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// profile shapes one family's scenarios. Probabilities are per step; what is left after the
// named ones goes to creating tasks.
type profile struct {
	workers    [2]int // initial workers, min..max
	tags       int    // size of the tag vocabulary
	workerTags [2]int // tags per worker
	taskTags   [2]int // tags per task
	steps      [2]int // steps after the initial workers
	preQueue   int    // tasks created before any worker exists
	weights    string // "", "int", "real" or "pattern": how workers carry routing weights
	weightProb float64
	zeroProb   float64 // a weight entry of 0 (a hard veto)
	threshProb float64 // a task with skill thresholds
	vetoProb   float64 // a task vetoing some workers
	priorities string  // "small" (0..3), "real", "signed" (-2..2, many equal)
	ids        string  // "seq" (t001, t002, ...) or "mixed" (non-monotonic strings)
	backlog    [2]int  // per-worker backlog override range; {0,0} keeps the default
	backlogP   float64
	accept     float64
	reject     float64
	complete   float64
	advance    float64
	advanceMs  [2]int64
	join       float64 // a new worker joins
	pause      float64 // pause or resume
	leave      float64
	update     float64 // an existing worker's tags or weights change
	fairness   string
	reuse      float64 // share of joins that register a removed worker's id again
	drop       float64 // share of updates that send no weights (the engine then drops them)
	tick       float64 // a small clock move between requests
	tickMs     [2]int64
	learning   bool // the engine's learning on, with this exploration rate
	explore    float64
}

// base is the mix every family starts from: a small tags-only workspace with a little of
// everything, so a family differs from it only in what it stresses.
var base = profile{
	workers: [2]int{2, 6}, tags: 6, workerTags: [2]int{1, 3}, taskTags: [2]int{1, 3}, steps: [2]int{12, 30},
	priorities: "small", ids: "seq", accept: 0.15, reject: 0.05, complete: 0.08, advance: 0.05,
	advanceMs: [2]int64{5_000, 70_000},
}

// Families lists every family in the order reports print them.
var Families = []string{
	"tags-only", "int-weights", "real-weights", "patterns", "thresholds", "deep-queue",
	"vetoes", "rejects", "expiries", "churn", "priorities", "large",
	"fairness-first-come", "fairness-best-match", "fairness-balanced", "fairness-spread-work",
	"reused-ids", "dropped-weights", "mass-expiries", "late-priority", "balanced-many",
	"spread-many", "over-512", "clock-moves", "learning", "learning-explore",
}

func familyProfile(family string) (profile, error) {
	p := base
	switch family {
	case "tags-only":
	case "int-weights":
		p.weights, p.weightProb, p.zeroProb = "int", 0.9, 0.05
	case "real-weights":
		p.weights, p.weightProb, p.zeroProb, p.priorities = "real", 0.9, 0.05, "real"
	case "patterns":
		p.weights, p.weightProb, p.zeroProb = "pattern", 0.9, 0.08
	case "thresholds":
		p.weights, p.weightProb, p.threshProb = "int", 0.7, 0.5
	case "deep-queue":
		p.preQueue, p.workers, p.steps = 55, [2]int{1, 3}, [2]int{25, 60}
		p.backlog, p.backlogP = [2]int{1, 3}, 0.8
		p.accept, p.complete = 0.3, 0.2
	case "vetoes":
		p.vetoProb = 0.5
	case "rejects":
		p.reject, p.accept = 0.3, 0.1
	case "expiries":
		p.advance, p.accept = 0.25, 0.05
	case "churn":
		p.join, p.pause, p.leave, p.update = 0.08, 0.1, 0.05, 0.07
	case "priorities":
		p.priorities, p.ids = "signed", "mixed"
	case "large":
		p.workers, p.steps, p.tags, p.preQueue = [2]int{200, 230}, [2]int{30, 50}, 12, 20
		p.workerTags = [2]int{1, 4}
	case "fairness-first-come":
		p.fairness, p.weights, p.weightProb = FairnessFirstCome, "int", 0.5
	case "fairness-best-match":
		p.fairness, p.weights, p.weightProb = FairnessBestMatch, "int", 0.5
	case "fairness-balanced":
		p.fairness, p.weights, p.weightProb = FairnessBalanced, "int", 0.5
	case "fairness-spread-work":
		p.fairness, p.weights, p.weightProb = FairnessSpreadWork, "int", 0.5
	case "reused-ids":
		// Vetoes and rejects name the workers that leave and come back, with few tags so
		// the vetoed tasks wait for them.
		p.join, p.leave, p.reuse, p.vetoProb, p.reject = 0.15, 0.15, 0.9, 0.6, 0.15
		p.workers, p.steps, p.tags, p.workerTags, p.taskTags = [2]int{2, 3}, [2]int{30, 50}, 3, [2]int{1, 1}, [2]int{1, 1}
	case "dropped-weights":
		p.weights, p.weightProb, p.update, p.drop = "int", 0.9, 0.15, 0.5
	case "mass-expiries":
		p.preQueue, p.workers, p.steps = 120, [2]int{3, 6}, [2]int{20, 40}
		p.backlog, p.backlogP = [2]int{20, 60}, 1
		p.advance, p.advanceMs, p.accept = 0.2, [2]int64{60_000, 70_000}, 0.05
	case "late-priority":
		p.preQueue, p.workers, p.steps, p.priorities = 100, [2]int{1, 3}, [2]int{20, 40}, "late"
		p.backlog, p.backlogP = [2]int{40, 60}, 1
	case "balanced-many":
		p.fairness, p.weights, p.weightProb = FairnessBalanced, "int", 0.5
		p.workers, p.steps, p.tags = [2]int{10, 30}, [2]int{30, 60}, 8
	case "spread-many":
		p.fairness, p.weights, p.weightProb = FairnessSpreadWork, "int", 0.5
		p.workers, p.steps, p.tags = [2]int{10, 30}, [2]int{30, 60}, 8
	case "over-512":
		// Beyond Redis's default listpack limit (512 fields): the pinned Redis keeps the
		// registration order, which is what the identical comparison needs. Workers come
		// first (a pass with nothing queued is skipped) and the steps are few, as every pass
		// reads every worker.
		p.workers, p.steps, p.tags = [2]int{513, 530}, [2]int{3, 6}, 12
		p.workerTags = [2]int{1, 4}
	case "clock-moves":
		p.tick, p.tickMs, p.accept = 0.3, [2]int64{1, 1_500}, 0.15
	case "learning", "learning-explore":
		// Few tags shared by several workers, so the learned reward decides between
		// workers the score ties; plenty of accepts, rejects, completions and expiries
		// to learn from.
		p.learning = true
		p.weights, p.weightProb = "int", 0.5
		p.workers, p.steps, p.tags, p.workerTags = [2]int{3, 6}, [2]int{30, 50}, 4, [2]int{1, 2}
		p.accept, p.reject, p.complete, p.advance = 0.25, 0.15, 0.15, 0.05
		if family == "learning-explore" {
			p.explore = 0.3
		}
	default:
		return profile{}, fmt.Errorf("conformance: unknown family %q (known: %v)", family, Families)
	}
	return p, nil
}

// Generate returns scenario index of a family for a seed. The same (family, seed, index)
// always gives the same scenario.
func Generate(family string, seed uint64, index int) (Scenario, error) {
	p, err := familyProfile(family)
	if err != nil {
		return Scenario{}, err
	}
	h := fnv.New64a()
	h.Write([]byte(family))
	g := &gen{p: p, rng: rand.New(rand.NewPCG(seed, h.Sum64()^uint64(index)*0x9e3779b97f4a7c15))}
	sc := Scenario{Family: family, Seed: seed, Index: index, Options: Options{Fairness: p.fairness}}
	if p.learning {
		sc.Options.Learning, sc.Options.Exploration = true, p.explore
		sc.Options.LearningSeed = uint64(g.rng.Uint32())
	}
	sc.Steps = g.steps()
	return sc, nil
}

type gen struct {
	p       profile
	rng     *rand.Rand
	workers []string // present
	removed []string // removed, not registered again
	paused  map[string]bool
	nextW   int
	nextT   int
	usedIDs map[string]bool
	out     []Step
}

func (g *gen) between(r [2]int) int { return r[0] + g.rng.IntN(r[1]-r[0]+1) }

func (g *gen) steps() []Step {
	g.paused, g.usedIDs = map[string]bool{}, map[string]bool{}
	for range g.p.preQueue {
		g.out = append(g.out, g.task())
	}
	for range g.between(g.p.workers) {
		g.out = append(g.out, g.newWorker())
	}
	for range g.between(g.p.steps) {
		g.out = append(g.out, g.next())
	}
	return g.out
}

func (g *gen) next() Step {
	r := g.rng.Float64()
	for _, c := range []struct {
		p    float64
		make func() (Step, bool)
	}{
		{g.p.accept, func() (Step, bool) { return Step{Op: OpAccept, Pick: g.rng.IntN(16)}, true }},
		{g.p.reject, func() (Step, bool) { return Step{Op: OpReject, Pick: g.rng.IntN(16)}, true }},
		{g.p.complete, func() (Step, bool) { return Step{Op: OpComplete, Pick: g.rng.IntN(16)}, true }},
		{g.p.advance, func() (Step, bool) {
			return Step{Op: OpAdvance, Ms: g.p.advanceMs[0] + g.rng.Int64N(g.p.advanceMs[1]-g.p.advanceMs[0]+1)}, true
		}},
		{g.p.tick, func() (Step, bool) {
			return Step{Op: OpAdvance, Ms: g.p.tickMs[0] + g.rng.Int64N(g.p.tickMs[1]-g.p.tickMs[0]+1)}, true
		}},
		{g.p.join, func() (Step, bool) { return g.join(), true }},
		{g.p.pause, g.pauseOrResume},
		{g.p.leave, g.leave},
		{g.p.update, g.update},
	} {
		if r < c.p {
			if st, ok := c.make(); ok {
				return st
			}
			break
		}
		r -= c.p
	}
	return g.task()
}

func (g *gen) tag() string { return "g" + strconv.Itoa(g.rng.IntN(g.p.tags)) }

// patternTag draws from two families of names so `prefix*` weights can cover several tags.
func (g *gen) patternTag() string {
	prefixes := []string{"lang:", "skill:", "region:"}
	return prefixes[g.rng.IntN(len(prefixes))] + strconv.Itoa(g.rng.IntN(3))
}

func (g *gen) tagSet(r [2]int) []string {
	n := g.between(r)
	var out []string
	for tries := 0; len(out) < n && tries < 50; tries++ {
		t := g.tag()
		if g.p.weights == "pattern" {
			t = g.patternTag()
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func (g *gen) weight() float64 {
	if g.rng.Float64() < g.p.zeroProb {
		return 0
	}
	switch g.p.weights {
	case "real":
		return math.Round((0.05+g.rng.Float64()*4.95)*1000) / 1000
	default:
		return float64(1 + g.rng.IntN(5))
	}
}

func (g *gen) workerBody(st *Step) {
	st.Tags = g.tagSet(g.p.workerTags)
	st.Weights = nil
	if g.p.weights != "" && g.rng.Float64() < g.p.weightProb {
		st.Weights = map[string]float64{}
		for _, t := range g.tagSet(g.p.workerTags) {
			st.Weights[t] = g.weight()
		}
		if g.p.weights == "pattern" && g.rng.Float64() < 0.7 {
			prefixes := []string{"lang:*", "skill:*", "region:*"}
			st.Weights[prefixes[g.rng.IntN(len(prefixes))]] = g.weight()
		}
		if g.rng.Float64() < 0.3 {
			st.Tags = nil // weights only
		}
	}
	st.Backlog = nil
	if g.p.backlogP > 0 && g.rng.Float64() < g.p.backlogP {
		b := g.between(g.p.backlog)
		st.Backlog = &b
	}
}

func (g *gen) newWorker() Step {
	g.nextW++
	id := fmt.Sprintf("w%02d", g.nextW)
	if g.p.ids == "mixed" {
		id = g.mixedID("w")
	}
	st := Step{Op: OpWorker, ID: id}
	g.workerBody(&st)
	g.workers = append(g.workers, id)
	return st
}

func (g *gen) update() (Step, bool) {
	if len(g.workers) == 0 {
		return Step{}, false
	}
	st := Step{Op: OpWorker, ID: g.workers[g.rng.IntN(len(g.workers))]}
	g.workerBody(&st)
	if g.p.drop > 0 && g.rng.Float64() < g.p.drop {
		st.Weights = nil
		if len(st.Tags) == 0 {
			st.Tags = g.tagSet(g.p.workerTags)
		}
	}
	return st, true
}

// join registers a new worker, or (with the profile's reuse share) a removed one's id again.
func (g *gen) join() Step {
	if len(g.removed) > 0 && g.rng.Float64() < g.p.reuse {
		i := g.rng.IntN(len(g.removed))
		st := Step{Op: OpWorker, ID: g.removed[i]}
		g.removed = slices.Delete(g.removed, i, i+1)
		g.workerBody(&st)
		g.workers = append(g.workers, st.ID)
		return st
	}
	return g.newWorker()
}

func (g *gen) pauseOrResume() (Step, bool) {
	if len(g.workers) == 0 {
		return Step{}, false
	}
	id := g.workers[g.rng.IntN(len(g.workers))]
	op := OpPause
	if g.paused[id] {
		op = OpResume
	}
	g.paused[id] = !g.paused[id]
	return Step{Op: op, ID: id}, true
}

func (g *gen) leave() (Step, bool) {
	if len(g.workers) <= 1 {
		return Step{}, false
	}
	i := g.rng.IntN(len(g.workers))
	id := g.workers[i]
	g.workers = slices.Delete(g.workers, i, i+1)
	g.removed = append(g.removed, id)
	delete(g.paused, id)
	return Step{Op: OpRemove, ID: id}, true
}

// mixedID makes ids whose string order has nothing to do with creation order.
func (g *gen) mixedID(prefix string) string {
	for {
		var id string
		switch g.rng.IntN(3) {
		case 0:
			id = prefix + string(rune('a'+g.rng.IntN(26))) + string(rune('a'+g.rng.IntN(26)))
		case 1:
			id = prefix + strconv.Itoa(g.rng.IntN(200))
		default:
			id = prefix + "-" + strconv.Itoa(g.rng.IntN(40)) + string(rune('a'+g.rng.IntN(26)))
		}
		if !g.usedIDs[id] {
			g.usedIDs[id] = true
			return id
		}
	}
}

func (g *gen) task() Step {
	g.nextT++
	id := fmt.Sprintf("t%03d", g.nextT)
	if g.p.ids == "mixed" {
		id = g.mixedID("t")
	}
	st := Step{Op: OpTask, ID: id, Tags: g.tagSet(g.p.taskTags)}
	switch g.p.priorities {
	case "signed":
		st.Priority = float64(g.rng.IntN(5) - 2)
	case "real":
		st.Priority = math.Round(g.rng.Float64()*3000) / 1000
	case "late":
		// Queued before any worker: priority 1; later, now and then an urgent one.
		st.Priority = 1
		if len(g.workers) > 0 && g.rng.Float64() < 0.3 {
			st.Priority = float64(5 + g.rng.IntN(5))
		}
	default:
		st.Priority = float64(g.rng.IntN(4))
	}
	if g.p.threshProb > 0 && g.rng.Float64() < g.p.threshProb {
		st.Thresholds = map[string]float64{st.Tags[0]: float64(1 + g.rng.IntN(4))}
	}
	if g.p.vetoProb > 0 && g.rng.Float64() < g.p.vetoProb && len(g.workers) > 0 {
		for range 1 + g.rng.IntN(2) {
			w := g.workers[g.rng.IntN(len(g.workers))]
			if !slices.Contains(st.Vetoed, w) {
				st.Vetoed = append(st.Vetoed, w)
			}
		}
	}
	return st
}
