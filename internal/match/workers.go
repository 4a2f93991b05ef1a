package match

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

const maxIDLen = 128

func checkID(field, id string) error {
	if id == "" {
		return inputErr(field, "must not be empty")
	}
	if len(id) > maxIDLen {
		return inputErr(field, "longer than 128 characters")
	}
	return nil
}

func checkWorkerInput(in WorkerInput) error {
	for _, t := range in.Tags {
		if t == "" {
			return inputErr("tags", "a tag must not be empty")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.RoutingWeights)) {
		v := in.RoutingWeights[k]
		if k == "" {
			return inputErr("routingWeights", "a key must not be empty")
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return inputErr("routingWeights", "weights must be finite and >= 0")
		}
	}
	if in.MaxBacklogSize != nil && *in.MaxBacklogSize < 0 {
		return inputErr("maxBacklogSize", "must be >= 0")
	}
	return checkWorkerRouting(in.Routing)
}

// UpsertWorker creates or updates a worker (POST /workers). Result.Created tells which. A
// new worker is unavailable unless in.Available is true; on an update nil fields keep
// their value.
func (e *Engine) UpsertWorker(now time.Time, in WorkerInput) (Result, error) {
	res := e.begin(&Result{}, now)
	if err := checkID("id", in.ID); err != nil {
		return e.fail(res, err)
	}
	if err := checkWorkerInput(in); err != nil {
		return e.fail(res, err)
	}
	w, ok := e.workers[in.ID]
	if !ok {
		w = &worker{id: in.ID, createdAt: e.nowTime, lastMatch: e.now}
		e.workers[in.ID] = w
		e.sortedIDs = nil
		if e.platform() {
			e.platRegister(w)
		}
		res.Created = true
	}
	e.applyWorker(w, in)
	return e.finish(res), nil
}

// PatchWorker updates an existing worker (PATCH /workers/{id}); in.ID is ignored and nil
// fields keep their value.
func (e *Engine) PatchWorker(now time.Time, id string, in WorkerInput) (Result, error) {
	res := e.begin(&Result{}, now)
	w, err := e.lookupWorker(id)
	if err != nil {
		return e.fail(res, err)
	}
	if err := checkWorkerInput(in); err != nil {
		return e.fail(res, err)
	}
	e.applyWorker(w, in)
	return e.finish(res), nil
}

func (e *Engine) applyWorker(w *worker, in WorkerInput) {
	if in.Tags != nil {
		w.tags = dedupe(in.Tags)
	}
	if in.RoutingWeights != nil {
		w.weights = make(map[string]float64, len(in.RoutingWeights))
		for k, v := range in.RoutingWeights {
			w.weights[k] = v
		}
	}
	if in.MaxBacklogSize != nil {
		v := *in.MaxBacklogSize
		w.maxBack = &v
	}
	if in.Available != nil {
		w.available = *in.Available
	}
	if in.Extra != nil {
		w.extra = in.Extra
	}
	if in.Routing != nil {
		e.setRouting(w, in.Routing)
	}
	e.derive(w)
	e.updateBound(w)
	e.reindex(w)
	e.markWorker(w)
}

func dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// derive recomputes the interned views of a worker's tags and weights.
func (e *Engine) derive(w *worker) {
	w.tagIDs, w.tagSeq, w.starTags = w.tagIDs[:0], w.tagSeq[:0], false
	for _, t := range w.tags {
		w.tagIDs = append(w.tagIDs, e.intern(t))
		w.starTags = w.starTags || strings.HasSuffix(t, "*")
	}
	w.tagSeq = append(w.tagSeq, w.tagIDs...)
	slices.Sort(w.tagIDs)
	w.carried = append(w.carried[:0], w.tagIDs...)
	w.lit = make(map[int32]float64, len(w.weights))
	w.patterns = w.patterns[:0]
	w.posPat = false
	// Sorted keys: tag ids are handed out in first-seen order, which must not depend on
	// map order.
	for _, k := range slices.Sorted(maps.Keys(w.weights)) {
		v := w.weights[k]
		if prefix, ok := strings.CutSuffix(k, "*"); ok {
			w.patterns = append(w.patterns, pattern{prefix: prefix, weight: v})
			if v > 0 {
				w.posPat = true
			}
			continue
		}
		id := e.intern(k)
		w.lit[id] = v
		if v > 0 {
			w.carried = append(w.carried, id)
		}
	}
	// The longest prefix wins; ties cannot happen because keys are unique.
	slices.SortFunc(w.patterns, func(a, b pattern) int {
		if len(a.prefix) != len(b.prefix) {
			return len(b.prefix) - len(a.prefix)
		}
		return strings.Compare(a.prefix, b.prefix)
	})
	slices.Sort(w.carried)
	w.carried = slices.Compact(w.carried)
	w.mask = tagMask(w)
}

// isReady: the worker may receive a new offer now.
func (e *Engine) isReady(w *worker) bool {
	return !w.removed && w.available && !w.onBreak && len(w.pending) < e.capOf(w)
}

// reindex rebuilds the worker's index membership after its tags, weights or state changed.
// Only applyWorker calls it, with a registered worker: RemoveWorker unindexes a worker and
// drops it from e.workers in one command, so a removed worker never reaches it.
func (e *Engine) reindex(w *worker) {
	e.unindex(w)
	w.idxTags = append(w.idxTags[:0], w.carried...)
	w.allPos = slices.Grow(w.allPos[:0], len(w.idxTags))[:len(w.idxTags)]
	for i, tag := range w.idxTags {
		e.all[tag].add(w, &w.allPos[i])
	}
	w.aPatPos = -1
	if w.posPat {
		e.allPat.add(w, &w.aPatPos)
	}
	w.indexed = true
	e.setReady(w)
}

// setReady moves a worker in or out of the ready indexes only (its tags are unchanged).
func (e *Engine) setReady(w *worker) {
	defer e.syncWaiting(w)
	want := e.isReady(w)
	if want == w.ready {
		// Callers change pending counts and idle times, which order the ready heaps.
		e.rekey(w)
		return
	}
	if !want {
		e.unready(w)
		return
	}
	w.readyPos = slices.Grow(w.readyPos[:0], len(w.idxTags))[:len(w.idxTags)]
	for i, tag := range w.idxTags {
		e.ready[tag].add(w, int32(i))
	}
	e.readyRoutes(w)
	w.rPatPos = -1
	if w.posPat {
		e.readyPat.add(w, &w.rPatPos)
	}
	w.ready = true
}

func (e *Engine) unready(w *worker) {
	if !w.ready {
		return
	}
	for i, tag := range w.idxTags {
		e.ready[tag].remove(int(w.readyPos[i]))
	}
	e.unreadyRoutes(w)
	if w.rPatPos >= 0 {
		e.readyPat.remove(w.rPatPos, func(x *worker) *int32 { return &x.rPatPos })
		w.rPatPos = -1
	}
	w.ready = false
}

// syncWaiting keeps an indexed worker that is not ready in the waiting lists of its tags,
// so that a decision can name a few such carriers (unavailable, on a break, at the cap)
// without scanning every worker. Only the every-tag rules' decisions read the lists
// (waitingCarriers); a platform decision names the carriers of the task's tags from the
// all-workers lists (decidePlatform), so under RulesPlatform nobody is listed.
func (e *Engine) syncWaiting(w *worker) {
	want := w.indexed && !w.ready && !e.platform()
	if want == w.isWait {
		return
	}
	if !want {
		e.unwait(w)
		return
	}
	w.waitPos = slices.Grow(w.waitPos[:0], len(w.idxTags))[:len(w.idxTags)]
	for i, tag := range w.idxTags {
		e.waiting[tag].add(w, &w.waitPos[i])
	}
	w.isWait = true
}

func (e *Engine) unwait(w *worker) {
	if !w.isWait {
		return
	}
	for i, tag := range w.idxTags {
		e.waiting[tag].remove(w.waitPos[i], waitSlot(tag))
	}
	w.isWait = false
}

func waitSlot(tag int32) func(*worker) *int32 {
	return func(x *worker) *int32 {
		i, _ := slices.BinarySearch(x.idxTags, tag)
		return &x.waitPos[i]
	}
}

func (e *Engine) unindex(w *worker) {
	e.unready(w)
	e.unwait(w)
	if !w.indexed {
		return
	}
	for i, tag := range w.idxTags {
		e.all[tag].remove(w.allPos[i], allSlot(tag))
	}
	if w.aPatPos >= 0 {
		e.allPat.remove(w.aPatPos, func(x *worker) *int32 { return &x.aPatPos })
		w.aPatPos = -1
	}
	w.idxTags = w.idxTags[:0]
	w.indexed = false
}

func allSlot(tag int32) func(*worker) *int32 {
	return func(x *worker) *int32 {
		i, _ := slices.BinarySearch(x.idxTags, tag)
		return &x.allPos[i]
	}
}

// SetAvailability sets a worker's availability (POST /workers/{id}/availability). With
// available false and releaseBacklog true its pending offers are requeued (task.released)
// and listed in Result.ReleasedTaskIDs; releaseBacklog with available true is an
// *InputError.
func (e *Engine) SetAvailability(now time.Time, id string, available, releaseBacklog bool) (Result, error) {
	res := e.begin(&Result{}, now)
	if available && releaseBacklog {
		return e.fail(res, inputErr("releaseBacklog", "only allowed with available false"))
	}
	w, err := e.lookupWorker(id)
	if err != nil {
		return e.fail(res, err)
	}
	w.available = available
	if releaseBacklog {
		res.ReleasedTaskIDs = e.releaseAll(w, "releaseBacklog", res)
	}
	e.setReady(w)
	e.markWorker(w)
	return e.finish(res), nil
}

// releaseAll withdraws every pending offer of w and queues the tasks again.
func (e *Engine) releaseAll(w *worker, why string, res *Result) []string {
	ids := []string{}
	for len(w.pending) > 0 {
		t := w.pending[0]
		e.withdraw(t)
		ev := e.taskEvent(res, EventTaskReleased, t, w.id)
		ev.Reason = why
		e.requeue(t)
		ids = append(ids, t.id)
	}
	return ids
}

// StartBreak opens a break (POST /portal/breaks/start): no new offers until EndBreak; the
// backlog is kept and its offers keep expiring. ErrBreakAlreadyOpen when one is open.
func (e *Engine) StartBreak(now time.Time, id, reason string) (Result, error) {
	res := e.begin(&Result{}, now)
	w, err := e.lookupWorker(id)
	if err != nil {
		return e.fail(res, err)
	}
	if w.onBreak {
		return e.fail(res, ErrBreakAlreadyOpen)
	}
	w.onBreak, w.breakAt, w.breakWhy = true, e.nowTime, reason
	e.setReady(w)
	e.emit(res, Event{Kind: EventWorkerBreakStarted, WorkerID: w.id, Reason: reason})
	return e.finish(res), nil
}

// EndBreak closes the open break (POST /portal/breaks/end) and matches the worker at
// once. ErrNoOpenBreak when none is open.
func (e *Engine) EndBreak(now time.Time, id string) (Result, error) {
	res := e.begin(&Result{}, now)
	w, err := e.lookupWorker(id)
	if err != nil {
		return e.fail(res, err)
	}
	if !w.onBreak {
		return e.fail(res, ErrNoOpenBreak)
	}
	reason := w.breakWhy
	w.onBreak, w.breakAt, w.breakWhy = false, time.Time{}, ""
	e.setReady(w)
	e.markWorker(w)
	e.emit(res, Event{Kind: EventWorkerBreakEnded, WorkerID: w.id, Reason: reason})
	return e.finish(res), nil
}

// RemoveWorker deletes a worker (DELETE /workers/{id}). Under RulesEveryTag its pending
// offers are requeued (task.released); under RulesPlatform they are not (platForget: they
// stay until they expire, and the tasks vetoing or rejected by it forget it). Tasks it
// accepted stay accepted and it can still complete them. Its learning statistics are dropped.
func (e *Engine) RemoveWorker(now time.Time, id string) (Result, error) {
	res := e.begin(&Result{}, now)
	w, err := e.lookupWorker(id)
	if err != nil {
		return e.fail(res, err)
	}
	if e.platform() {
		e.platForget(w)
	} else {
		e.releaseAll(w, "workerRemoved", res)
	}
	w.removed = true
	if e.platform() {
		e.platUnregister(w)
	}
	e.unindex(w)
	e.forgetStats(w)
	delete(e.workers, id)
	e.sortedIDs = nil
	return e.finish(res), nil
}
