package match

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"strings"
	"time"
)

// platState is the engine's state for RulesPlatform.
type platState struct {
	order   []*worker    // registration order: the engine's user order
	byTag   []prioOrder  // by tag id: queued tasks carrying it, by priority then id
	keys    []platKey    // scratch: a worker's positive entries, expanded
	zero    []platKey    // scratch: its 0 entries, expanded
	met     []winItem    // scratch: the window being read
	workers []*worker    // scratch: the workers a decision explains (explainees)
	warmth  int32        // what warmWorkers read, kept so the loads stay
	walk    []winItem    // scratch: the window in walk order (sortWalk)
	keyAt   []int32      // scratch: by tag id, the entry of plat.keys reaching it, plus one (platIndexKeys)
	keysDup bool         // a tag is reached by two entries of plat.keys: keyAt is not used
	cursors []platCursor // scratch: its entries being read (platform_window.go)
	heads   []cursorHead // scratch: their keys, in a heap (platform_window.go)
	pairs   []platPair   // scratch: a pass's candidates in one list (arbitrate)
	cands   []platCand   // scratch: every worker's candidates in a pass
	users   []platUser   // scratch: the workers of a pass with their candidates
	union   int          // the candidates the last platWindow met (above the window size: maybe more)
	// Ties (platform_ties.go): the pass's groups of pairs offering one task at one rank to
	// different workers (tieIdx[from:to] for each), a scratch index, and the tie set of the
	// offer being recorded (record reads it).
	tieGroups [][2]int32
	tieIdx    []int32
	tieSort   []int32
	tie       []string
	seq       uint64        // registration numbers
	dirty     []*worker     // workers the next pass must look at (unordered)
	spare     []*worker     // the previous dirty list, reused
	learn     *platLearning // LearningConfig.Rank (platform_learning.go); nil when off
}

// platUser is one worker's part of a pass: its candidates are cands[from:to].
type platUser struct {
	w        *worker
	from, to int
	max      int // the most offers it may hold after the pass
	walked   int // window tasks it walked (ModeFirstCome: when it claims)
}

// balancedWindow is the engine's fairnessWindowMs default: grants older than this no
// longer count against the balanced grant cap.
const balancedWindow = time.Hour

// balancedPenaltyRatio is the balanced preset's load penalty as a share of the median
// candidate priority of the pass.
const balancedPenaltyRatio = 0.05

// spreadWorkPenaltyRatio is the spread-work preset's: half the median.
const spreadWorkPenaltyRatio = 0.5

// balanced reports whether the mode lowers scores by load: ModeBalanced or ModeSpreadWork.
func (e *Engine) balanced() bool { return e.cfg.Mode == ModeBalanced || e.cfg.Mode == ModeSpreadWork }

func (e *Engine) platRegister(w *worker) {
	e.plat.seq++
	w.platSeq = e.plat.seq
	w.platOrd = w.platSeq
	if !e.cfg.ShuffleTies {
		e.plat.order = append(e.plat.order, w)
		e.platMark(w)
		return
	}
	w.platOrd = tieRank(e.cfg.Seed, w.id)
	i, _ := slices.BinarySearchFunc(e.plat.order, w, platCompare)
	e.plat.order = slices.Insert(e.plat.order, i, w)
	e.platMark(w)
}

// platCompare orders workers as a pass meets them, which is how ties between them are
// broken: by platOrd, then registration.
func platCompare(a, b *worker) int {
	return cmp.Or(cmp.Compare(a.platOrd, b.platOrd), cmp.Compare(a.platSeq, b.platSeq))
}

// tieRank is a worker's place in the shuffled tie order: a seeded hash of its id (FNV-1a,
// then the splitmix64 finaliser to spread the seed's bits), so the order depends on the
// seed and the ids, not on when workers registered, as a Redis hash's order does.
func tieRank(seed uint64, id string) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// platMark makes the next pass look at w.
func (e *Engine) platMark(w *worker) {
	if !w.platDirty {
		w.platDirty = true
		e.plat.dirty = append(e.plat.dirty, w)
	}
}

// platMarkReach makes the next pass look at the ready workers that may reach t: the
// literal carriers of its tags and the workers with patterns. With onlyFull, only those
// whose last look found a candidate union wider than the window (t leaving the queue may
// bring another task into it).
func (e *Engine) platMarkReach(t *task, onlyFull bool) {
	for _, id := range t.tags {
		for _, it := range e.ready[id].items {
			if !onlyFull || it.w.platFull {
				e.platMark(it.w)
			}
		}
	}
	for _, w := range e.readyPat.items {
		if !onlyFull || w.platFull {
			e.platMark(w)
		}
	}
}

func (e *Engine) platUnregister(w *worker) {
	e.plat.order = slices.DeleteFunc(e.plat.order, func(x *worker) bool { return x == w })
}

func (e *Engine) platEnqueue(t *task) {
	for _, id := range t.tags {
		e.plat.byTag[id].add(t)
	}
	t.platQueued = true
	e.platMarkReach(t, false)
}

func (e *Engine) platDequeue(t *task) {
	if !t.platQueued {
		return
	}
	e.platUnindex(t)
	t.platQueued = false
	e.platMarkReach(t, true)
}

// setTaskPriority changes t's priority, moving a queued t to its new place in the queue
// index of the rule set (enqueue): its tags' orders, or its group's heap.
func (e *Engine) setTaskPriority(t *task, priority float64) {
	switch {
	case t.platQueued:
		e.platUnindex(t)
		t.priority = priority
		e.platReindex(t)
	case t.g != nil:
		t.priority = priority
		t.g.fix(int(t.heapIdx))
	default:
		t.priority = priority
	}
}

// platUnindex takes a queued t out of its tags' orders, before its priority changes.
func (e *Engine) platUnindex(t *task) {
	for _, id := range t.tags {
		e.plat.byTag[id].remove(t)
	}
}

// platReindex puts t back after platUnindex.
func (e *Engine) platReindex(t *task) {
	for _, id := range t.tags {
		e.plat.byTag[id].add(t)
	}
}

// platformPass is the one match pass that follows every command under RulesPlatform.
// The every-tag rules' dirty lists stay empty here: markTask and markWorker mark for the
// pass instead (platMarkReach, platMark).
func (e *Engine) platformPass(res *Result) {
	ps := &e.plat
	cands, users := ps.cands[:0], ps.users[:0]
	firstCome := e.cfg.Mode == ModeFirstCome
	var winCap int
	if e.balanced() {
		winCap = e.balancedCap()
	}
	// Only the workers marked since the last pass can have a candidate (the others found
	// none and nothing they could reach changed); fullScan looks at every worker, as the
	// oracle TestPlatformIncrementalAgreesWithFullPass compares.
	look := ps.order
	if e.fullScan {
		for _, w := range ps.dirty {
			w.platDirty = false
		}
		clear(ps.dirty)
		ps.dirty = ps.dirty[:0]
	} else {
		look = ps.dirty
		ps.dirty, ps.spare = ps.spare[:0], nil
		slices.SortFunc(look, platCompare)
	}
	for _, w := range look {
		w.platDirty = false
	}
	for _, w := range look {
		if w.removed || !w.available || w.onBreak {
			continue
		}
		free := e.capOf(w) - len(w.pending)
		if free <= 0 {
			continue
		}
		if e.balanced() {
			free = min(free, max(0, winCap-e.grantsInWindow(w)))
			if free == 0 {
				e.platMark(w) // the grant cap may rise by the next pass
				continue
			}
		}
		from := len(cands)
		budget := -1
		if firstCome && ps.learn == nil {
			budget = free
		}
		var walked int
		cands, walked = e.platCandidates(w, budget, cands)
		if ps.learn != nil {
			// With learning the engine scores its whole window, then keeps the best.
			e.learnRank(w, cands[from:])
			if firstCome && len(cands)-from > free {
				clear(cands[from+free:])
				cands = cands[:from+free]
			}
		}
		w.platFull = ps.union > e.cfg.CandidateWindow
		if len(cands) > from || w.platPatternTags() {
			// It may keep a candidate after the awards (or, with a pattern among its tags,
			// be reached by tasks platMarkReach does not see): look again next pass.
			e.platMark(w)
		}
		if len(cands) > from {
			users = append(users, platUser{w: w, from: from, to: len(cands), max: len(w.pending) + free, walked: walked})
		}
	}
	if !e.fullScan {
		clear(look)
		ps.spare = look[:0]
	}
	ps.cands, ps.users = cands, users
	if firstCome {
		e.claimFirstCome(res)
	} else {
		e.arbitrate(res)
	}
	clear(ps.users)
	ps.users = ps.users[:0]
	clear(ps.cands)
	ps.cands = ps.cands[:0]
}

// claimFirstCome lets each worker claim its candidates in the order the engine's
// concurrent claims reach Redis on one connection: a round trip later for each kind of
// `prefix*` entry the worker has (platTier), and within a round, after the workers that
// walked fewer window tasks (each costs the engine two awaits before it claims), then in
// registration order. docs/contract.md says why this order is not guaranteed in production.
func (e *Engine) claimFirstCome(res *Result) {
	ps := &e.plat
	slices.SortStableFunc(ps.users, func(a, b platUser) int {
		return cmp.Or(cmp.Compare(platTier(a.w), platTier(b.w)), cmp.Compare(a.walked, b.walked))
	})
	ties := e.firstComeTies()
	for tier := 0; tier <= 2; tier++ {
		for ui, u := range ps.users {
			if platTier(u.w) != tier {
				continue
			}
			for _, c := range ps.cands[u.from:u.to] {
				if c.t.status == StatusQueued {
					ps.tie = ps.tie[:0]
					if g := ties[c.t]; slices.Contains(g, ui) {
						for _, i := range g {
							ps.tie = append(ps.tie, ps.users[i].w.id)
						}
					}
					e.platOffer(c.t, u.w, res)
				}
			}
		}
	}
	ps.tie = ps.tie[:0]
}

// platPair is one (worker, task) candidate in the pass's global list.
type platPair struct {
	u    int // index in plat.users
	c    platCand
	rank float64 // balanced: priority minus the load penalty when evaluated
	load int     // balanced: the worker's load when evaluated
	tie  int32   // 1 + its group in plat.tieGroups when other workers' pairs offer its task at its rank; 0 when none do
}

// arbitrate awards the pass's candidates in one list, best first (ModeBestMatch and
// ModeBalanced), then makes the offers grouped by worker in the order of first award.
func (e *Engine) arbitrate(res *Result) {
	ps := &e.plat
	if len(ps.users) == 1 && !e.balanced() {
		e.awardAlone(res)
		return
	}
	e.arbitrateAll(res)
}

// arbitrateAll is arbitrate for any number of workers.
func (e *Engine) arbitrateAll(res *Result) {
	ps := &e.plat
	pairs := ps.pairs[:0]
	defer func() {
		clear(pairs)
		ps.pairs = pairs[:0]
	}()
	for i, u := range ps.users {
		for _, c := range ps.cands[u.from:u.to] {
			pairs = append(pairs, platPair{u: i, c: c})
		}
	}
	load := make([]int, len(ps.users))
	for i, u := range ps.users {
		load[i] = len(u.w.pending)
	}
	won := make([][]platPair, len(ps.users))
	var firstWin []int
	award := func(p platPair) {
		t := p.c.t
		if t.platTaken || load[p.u] >= ps.users[p.u].max {
			return
		}
		t.platTaken = true
		load[p.u]++
		if len(won[p.u]) == 0 {
			firstWin = append(firstWin, p.u)
		}
		won[p.u] = append(won[p.u], p)
	}
	penalty := 0.0
	if e.balanced() && len(pairs) > 0 {
		prios := make([]float64, len(pairs))
		for i, p := range pairs {
			prios[i] = p.c.prio
		}
		slices.Sort(prios)
		mid := len(prios) / 2
		median := prios[mid]
		if len(prios)%2 == 0 {
			median = (prios[mid-1] + prios[mid]) / 2
		}
		if median > 0 {
			ratio := balancedPenaltyRatio
			if e.cfg.Mode == ModeSpreadWork {
				ratio = spreadWorkPenaltyRatio
			}
			penalty = median * ratio
		}
	}
	if penalty <= 0 {
		slices.SortStableFunc(pairs, func(a, b platPair) int { return cmp.Compare(b.c.prio, a.c.prio) })
		// Equal pairs keep the order the pass met their workers in: the tie order.
		e.markTies(pairs)
		for _, p := range pairs {
			award(p)
		}
	} else {
		h := &pairHeap{users: ps.users}
		eval := func(p platPair) platPair {
			p.load = load[p.u]
			p.rank = p.c.prio - penalty*float64(p.load)
			return p
		}
		for _, p := range pairs {
			h.items = append(h.items, eval(p))
		}
		heap.Init(h)
		for h.Len() > 0 {
			p := heap.Pop(h).(platPair)
			if p.c.t.platTaken {
				continue
			}
			if load[p.u] != p.load {
				heap.Push(h, eval(p))
				continue
			}
			award(p)
		}
	}
	for _, i := range firstWin {
		w := ps.users[i].w
		for _, p := range won[i] {
			p.c.t.platTaken = false
			if e.balanced() {
				w.grants = append(w.grants, e.now)
			}
			e.tieOf(pairs, p.tie)
			e.platOffer(p.c.t, w, res)
		}
	}
	for _, p := range pairs {
		p.c.t.platTaken = false
	}
}

// awardAlone is arbitrate for a pass with one worker (a freed slot, most often) in
// ModeBestMatch: its awards are its best candidates by priority + score, up to its free
// slots, ties to the one it walked first, as the stable sort of arbitrate orders them.
func (e *Engine) awardAlone(res *Result) {
	ps := &e.plat
	u := ps.users[0]
	cands := ps.cands[u.from:u.to]
	var won [defaultMaxBacklog]int
	free := min(u.max-len(u.w.pending), len(cands))
	if free > len(won) {
		e.arbitrateAll(res) // more slots than won holds: order them all
		return
	}
	for n := range free {
		best := -1
		for i := range cands {
			if !slices.Contains(won[:n], i) && (best < 0 || cands[i].prio > cands[best].prio) {
				best = i
			}
		}
		won[n] = best
	}
	for _, i := range won[:free] {
		e.platOffer(cands[i].t, u.w, res)
	}
}

// pairHeap is the balanced arbitration order: higher rank, then lower load when
// evaluated, then higher priority, then task id, then worker id.
type pairHeap struct {
	items []platPair
	users []platUser
}

func (h *pairHeap) Len() int      { return len(h.items) }
func (h *pairHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *pairHeap) Push(x any)    { h.items = append(h.items, x.(platPair)) }
func (h *pairHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
func (h *pairHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	if a.load != b.load {
		return a.load < b.load
	}
	if a.c.prio != b.c.prio {
		return a.c.prio > b.c.prio
	}
	if a.c.t.id != b.c.t.id {
		return a.c.t.id < b.c.t.id
	}
	return strings.Compare(h.users[a.u].w.id, h.users[b.u].w.id) < 0
}

// grantsInWindow counts w's balanced grants within the window, dropping older ones.
func (e *Engine) grantsInWindow(w *worker) int {
	from := e.now - int64(balancedWindow)
	i := 0
	for i < len(w.grants) && w.grants[i] < from {
		i++
	}
	if i > 0 {
		w.grants = append(w.grants[:0], w.grants[i:]...)
	}
	return len(w.grants)
}

// balancedCap is the balanced preset's grant cap per window: twice the mean grants of the
// workers taking part (available, not on a break), never below the default backlog cap.
func (e *Engine) balancedCap() int {
	total, n := 0, 0
	for _, w := range e.plat.order {
		if w.removed || !w.available || w.onBreak {
			continue
		}
		n++
		total += e.grantsInWindow(w)
	}
	return max(e.cfg.DefaultMaxBacklog, int(math.Ceil(2*float64(total)/float64(max(1, n)))))
}

// platOffer offers t to w, explaining the decision by the platform's score.
func (e *Engine) platOffer(t *task, w *worker, res *Result) {
	e.learnOffer(t, w)
	e.decidePlatform(t, w)
	e.offer(t, w, e.cfg.Mode, res)
}

// fireDuePlatform is the engine's maintenance sweep up to target. Without a maintenance
// interval it sweeps once, at target: every offer whose deadline has passed expires at
// target, in deadline order then task id, and the task clocks due fire in time order;
// nothing is matched in between, so the command's one pass re-matches all of them together
// (two expired offers can swap workers). With an interval it sweeps at each tick (a whole
// multiple of the interval) up to target at which an offer is due, and at each task clock:
// the offers due by the tick expire together, the clocks due fire, and one pass follows, as
// the engine's periodic sweep and the platform's pass after it do.
func (e *Engine) fireDuePlatform(res *Result, target int64, loc *time.Location) {
	if e.cfg.MaintenanceInterval > 0 {
		for {
			at, ok := e.NextDeadline()
			if !ok || at.UnixNano() > target {
				return
			}
			tick := at.UnixNano()
			e.fireClocksPlatform(res, tick, loc)
			e.setClock(tick, time.Unix(0, tick).In(loc))
			e.expireDue(res, tick)
			e.settle(res)
		}
	}
	e.fireClocksPlatform(res, target, loc)
	if len(e.deadlines.h) > 0 && e.deadlines.h[0].deadline <= target {
		e.setClock(target, time.Unix(0, target).In(loc))
		e.expireDue(res, target)
	}
}

// expireDue expires every pending offer whose deadline is at or before at, in deadline
// order then task id (the engine reads its expiry index by score, then member).
func (e *Engine) expireDue(res *Result, at int64) {
	var due []*task
	for len(e.deadlines.h) > 0 && e.deadlines.h[0].deadline <= at {
		t := e.deadlines.h[0].t
		e.deadlines.remove(t)
		due = append(due, t)
	}
	slices.SortStableFunc(due, func(a, b *task) int {
		if c := cmp.Compare(a.deadline, b.deadline); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	for _, t := range due {
		if t.status == StatusPending && t.w != nil {
			e.expire(t, res)
		}
	}
}

// fireClocksPlatform fires the task clocks due by at, in time order.
func (e *Engine) fireClocksPlatform(res *Result, at int64, loc *time.Location) {
	for len(e.clocks.h) > 0 && e.clocks.h[0].cl.at <= at {
		t := e.clocks.h[0]
		e.setClock(t.cl.at, time.Unix(0, t.cl.at).In(loc))
		e.fireClock(t, res)
	}
}

// sweepTick is the first maintenance tick at or after the deadline at (Unix ns).
func (e *Engine) sweepTick(at int64) int64 {
	iv := int64(e.cfg.MaintenanceInterval)
	if r := at % iv; r != 0 {
		if at > 0 {
			at += iv - r
		} else {
			at -= r
		}
	}
	return at
}

// platForget is RemoveWorker under RulesPlatform, as the engine's removeUser, which deletes
// the worker's sets of rejected and vetoing tasks: the worker's pending offers are not
// released (they stay with it until they expire, and nobody can answer them), and the tasks
// it rejected or that veto it forget it, so a worker registered again under the same id may
// be offered them. A task keeps showing its vetoedWorkers as created, and its vetoes hold
// again once it is queued again (requeue: the engine's addAssignment writes them anew); a
// waiting task whose priority changes, by hand or by an escalation step, is not queued again.
func (e *Engine) platForget(w *worker) {
	for _, t := range e.taskList {
		if t.status.Terminal() {
			continue
		}
		if slices.Contains(t.rejected, w.id) {
			t.rejected = slices.DeleteFunc(t.rejected, func(id string) bool { return id == w.id })
		}
		if slices.Contains(t.vetoed, w.id) {
			if _, ok := e.vetoesAsSent[t]; !ok {
				if e.vetoesAsSent == nil {
					e.vetoesAsSent = map[*task][]string{}
				}
				e.vetoesAsSent[t] = slices.Clone(t.vetoed)
			}
			t.vetoed = slices.DeleteFunc(slices.Clone(t.vetoed), func(id string) bool { return id == w.id })
		}
	}
}

// vetoedShown is vetoedWorkers as the task was created with.
func (e *Engine) vetoedShown(t *task) []string {
	if v, ok := e.vetoesAsSent[t]; ok {
		return v
	}
	return t.vetoed
}

// restoreVetoes gives a task queued again the vetoes a removal made it forget: the engine
// queues it again with addAssignment, which writes them anew.
func (e *Engine) restoreVetoes(t *task) {
	if v, ok := e.vetoesAsSent[t]; ok {
		t.vetoed = v
		delete(e.vetoesAsSent, t)
	}
}

// platPatternTags reports whether a worker without weights has a tag ending in `*`, which
// reaches tasks through a pattern the ready indexes do not list.
func (w *worker) platPatternTags() bool {
	return len(w.weights) == 0 && w.starTags
}
