package match

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// scanWindow is the window the straightforward way: rank every queued task of w's union,
// sort, keep the lowest, walk order. It returns the window and the union's size.
func scanWindow(e *Engine, w *worker) ([]string, int) {
	keys := e.platKeys(w, true, nil)
	zero := e.platKeys(w, false, nil)
	var union []platCand
	for _, t := range e.taskList {
		if !t.platQueued {
			continue
		}
		reached := false
		rank := 0.0
		for _, k := range keys {
			if slices.Contains(t.tags, k.id) {
				reached = true
				rank += k.weight * t.priority
			}
		}
		if !reached || scanExcluded(w, t, zero) {
			continue
		}
		union = append(union, platCand{t: t, rank: rank})
	}
	slices.SortFunc(union, platRankCmp)
	win := union[:min(len(union), e.cfg.CandidateWindow)]
	sortWindow(win)
	var ids []string
	for _, c := range win {
		ids = append(ids, windowID(c.t, c.rank))
	}
	return ids, len(union)
}

// scanExcluded is platExcluded read from the task itself.
func scanExcluded(w *worker, t *task, zero []platKey) bool {
	for _, k := range zero {
		if slices.Contains(t.tags, k.id) {
			return true
		}
	}
	return slices.Contains(t.vetoed, w.id) || slices.Contains(t.rejected, w.id) || (t.booked != "" && t.booked != w.id)
}

// sortWindow puts a window in the order the worker walks it, the straightforward way: by priority, highest first,
// ties in window order (rank, then task id as a string, a total order: one sort does both).
func sortWindow(win []platCand) {
	slices.SortFunc(win, func(a, b platCand) int {
		switch {
		case a.t.priority > b.t.priority:
			return -1
		case a.t.priority < b.t.priority:
			return 1
		}
		return platRankCmp(a, b)
	})
}

func windowIDs(win []winItem) []string {
	var out []string
	for _, it := range win {
		out = append(out, windowID(it.en.t, it.rank))
	}
	return out
}

// windowID names a task in a window with its rank.
func windowID(t *task, rank float64) string { return fmt.Sprintf("%s@%v", t.id, rank) }

// checkWindows compares every worker's indexed window with scanWindow, and every tag's
// order with a sort of its queued tasks (and its copied last entries with its chunks).
func checkWindows(e *Engine) error {
	for id := range e.plat.byTag {
		o := &e.plat.byTag[id]
		var got, want []*task
		if len(o.lasts) != len(o.chunks) {
			return fmt.Errorf("tag %s: %d chunks, %d last entries", e.tagNames[id], len(o.chunks), len(o.lasts))
		}
		for ci, c := range o.chunks {
			if len(c) == 0 || o.lasts[ci] != boundOf(&c[len(c)-1]) {
				return fmt.Errorf("tag %s: chunk %d of %d entries, its last entry copied as %+v", e.tagNames[id], ci, len(c), o.lasts[ci])
			}
			for _, en := range c {
				got = append(got, en.t)
				// An entry's copy is the task's, except that a task may have stopped
				// being plain after it was indexed (plain is only ever too strict).
				fresh := orderEntryOf(en.t)
				if en.plain && en != fresh || !en.plain && (en.prio != fresh.prio || en.key != fresh.key) {
					return fmt.Errorf("tag %s: entry of task %s is %+v, the task gives %+v", e.tagNames[id], en.t.id, en, fresh)
				}
			}
		}
		for _, t := range e.taskList {
			if t.platQueued && slices.Contains(t.tags, int32(id)) {
				want = append(want, t)
			}
		}
		slices.SortFunc(want, func(a, b *task) int {
			return cmp.Or(cmp.Compare(a.priority, b.priority), strings.Compare(a.id, b.id))
		})
		if !slices.Equal(got, want) || o.n != len(want) {
			return fmt.Errorf("tag %s: order of %d tasks (n %d) is not the sorted %d", e.tagNames[id], len(got), o.n, len(want))
		}
	}
	for _, w := range e.plat.order {
		for _, t := range e.taskList {
			// The score's shortcut (no reasons asked) against the explained score.
			var rs []Reason
			fast, fastWhy := e.platScore(w, t, nil)
			full, fullWhy := e.platScore(w, t, &rs)
			if fast != full || fastWhy != fullWhy {
				return fmt.Errorf("worker %s task %s: score %v (%s), explained %v (%s)", w.id, t.id, fast, fastWhy, full, fullWhy)
			}
			// The explanation's shortcut by tag ids against the one by names.
			s := e.taskSpec(t)
			var byID, byName []Reason
			if score, why, plain := e.platPlainScore(w, &s, &byID); plain {
				names, thr := e.specNames(&s)
				want, wantWhy := e.platScoreOf(w, names, thr, &byName)
				if score != want || why != wantWhy || !slices.Equal(byID, byName) {
					return fmt.Errorf("worker %s task %s: by ids %v (%s) %v, by names %v (%s) %v", w.id, t.id, score, why, byID, want, wantWhy, byName)
				}
			}
		}
		want, union := scanWindow(e, w)
		got := windowIDs(e.platWindow(w))
		if diff := gocmp.Diff(want, got); diff != "" {
			return fmt.Errorf("worker %s (tags %v, weights %v): window (-scan +index):\n%s", w.id, w.tags, w.weights, diff)
		}
		k := e.cfg.CandidateWindow
		// Above the window the index may stop early and say "more" (it marks the worker for
		// the next pass, which is safe); at or below it must count exactly.
		if n := e.plat.union; union > k && n <= k || n <= k && n != union {
			return fmt.Errorf("worker %s: union %d, the index says %d (window %d)", w.id, union, n, k)
		}
	}
	return nil
}

// TestPlatformWindowAgreesWithScan: the indexed window (platform_window.go) is the scan's,
// on random queues with negative, zero, fractional and equal priorities, ids out of
// creation order, weights and patterns, 0 entries, vetoes, bookings, repriced, retagged and
// cancelled tasks, for windows from 1 to the default.
func TestPlatformWindowAgreesWithScan(t *testing.T) {
	pool := []string{"a", "b", "c", "ab", "ac", "d"}
	keys := []string{"a", "b", "c", "ab", "ac", "d", "a*", "b*", "*"}
	prios := []float64{-3, -1, -0.5, 0, 0.25, 0.1, 0.2, 0.3, 1, 1, 1, 2, 2, 3, 7.5, 1e-300, 5e-324, 1e-323, 0, 0}
	weights := []float64{0, 0.1, 0.2, 0.3, 0.5, 1, 1, 2, 2.5, 7}
	seed := propSeed(t)
	for round := range 60 {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		tags := func(lo, hi int) []string {
			var out []string
			for range lo + rng.IntN(hi-lo+1) {
				out = append(out, pool[rng.IntN(len(pool))])
			}
			return out
		}
		window := []int{1, 2, 3, 7, 50}[round%5]
		e := New(Config{Rules: RulesPlatform, CandidateWindow: window})
		now := t0
		tick := func() time.Time { now = now.Add(time.Second); return now }
		nWorkers := 1 + rng.IntN(8)
		for i := range nWorkers {
			in := WorkerInput{ID: "w" + strconv.Itoa(i), Tags: tags(0, 4)}
			if rng.IntN(2) == 0 {
				in.RoutingWeights = map[string]float64{}
				for range 1 + rng.IntN(4) {
					in.RoutingWeights[keys[rng.IntN(len(keys))]] = weights[rng.IntN(len(weights))]
				}
			}
			if _, err := e.UpsertWorker(tick(), in); err != nil {
				t.Fatal(err)
			}
		}
		var ids []string
		for range rng.IntN(400) {
			// Ids drawn at random so creation order and string order disagree.
			id := "t" + strconv.Itoa(rng.IntN(100000))
			in := TaskInput{ID: id, Tags: tags(1, 3), Priority: prios[rng.IntN(len(prios))]}
			if rng.IntN(8) == 0 {
				in.VetoedWorkers = []string{"w" + strconv.Itoa(rng.IntN(nWorkers))}
			}
			if _, err := e.CreateTask(tick(), in); err != nil {
				continue // a repeated id
			}
			ids = append(ids, id)
		}
		for range len(ids) / 4 {
			id := ids[rng.IntN(len(ids))]
			var err error
			switch rng.IntN(4) {
			case 0:
				_, err = e.SetPriority(tick(), id, prios[rng.IntN(len(prios))])
			case 1:
				_, err = e.UpdateTask(tick(), id, TaskUpdate{Tags: tags(1, 3)})
			case 2:
				_, err = e.CancelTask(tick(), id)
			case 3:
				_, err = e.Book(tick(), id, "w"+strconv.Itoa(rng.IntN(nWorkers)))
			}
			_ = err // a cancelled task refuses the next change; the state stays as it was
		}
		if err := checkWindows(e); err != nil {
			t.Fatalf("round %d seed %d: %v", round, seed, err)
		}
	}
}

// TestPlatformWindowAgreesWithScanUnderCommands: the same comparison after every command of
// the property walk, where workers are available and tasks are offered, rejected, expire
// and come back.
func TestPlatformWindowAgreesWithScanUnderCommands(t *testing.T) {
	for _, cfg := range []Config{
		{Rules: RulesPlatform},
		{Rules: RulesPlatform, CandidateWindow: 2, OfferTimeout: 10 * time.Second},
		{Rules: RulesPlatform, Mode: ModeFirstCome, CandidateWindow: 3},
	} {
		seed := propSeed(t)
		p := newPropRun(cfg, seed)
		p.afterCommand = func() error { return checkWindows(p.e) }
		if err := p.run(1500); err != nil {
			t.Fatalf("%+v seed %d: %v", cfg, seed, err)
		}
	}
}

// platRankCmp orders a worker's window: rank ascending, then task id as a string.
func platRankCmp(a, b platCand) int {
	switch {
	case a.rank < b.rank:
		return -1
	case a.rank > b.rank:
		return 1
	}
	return strings.Compare(a.t.id, b.t.id)
}
