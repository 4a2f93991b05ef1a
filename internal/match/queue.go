package match

import (
	"slices"
	"time"
)

// enqueue puts a queued task in the queue index of the rule set: under RulesPlatform its
// tags' orders (platEnqueue), which are all a window reads; under RulesEveryTag its group,
// making the group when it is the first. The groups serve only bestTaskFor, which the
// every-tag rules alone call, so under RulesPlatform a task is in none and keeps the tag
// ids it was created with.
func (e *Engine) enqueue(t *task) {
	if e.platform() {
		e.platEnqueue(t)
		return
	}
	e.keyBuf = groupKey(e.keyBuf, t.tags, t.thr)
	g, ok := e.groups[string(e.keyBuf)]
	if !ok {
		g = e.newGroup(string(e.keyBuf), t)
	}
	t.tags = g.tags // share one copy per group
	t.g = g
	g.push(t)
}

func (e *Engine) newGroup(key string, t *task) *group {
	g := &group{key: key, tags: t.tags, thr: t.thr}
	// Key the group under its rarest tag (by tasks ever created with it) so a worker
	// reaching it through a common tag only meets groups made of common tags; ties go to
	// the later-seen tag, which is usually the rarer one, and keep this deterministic.
	g.keyTag = g.tags[0]
	for _, tag := range g.tags[1:] {
		if e.tagUses[tag] <= e.tagUses[g.keyTag] {
			g.keyTag = tag
		}
	}
	if len(e.byKeyTag[g.keyTag].items) == 0 {
		e.keyTagPos[g.keyTag] = int32(len(e.keyTags))
		e.keyTags = append(e.keyTags, g.keyTag)
	}
	e.byKeyTag[g.keyTag].add(g, &g.keyPos)
	if e.anyTag() {
		g.tagPos = make([]int32, len(g.tags))
		for i, tag := range g.tags {
			e.byTag[tag].add(g, &g.tagPos[i])
		}
	}
	if k, ok := packSet(g.tags); ok {
		e.bySmallSet[k] = append(e.bySmallSet[k], g)
	} else {
		g.setKey = string(groupKey(nil, g.tags, nil))
		e.byTagSet[g.setKey] = append(e.byTagSet[g.setKey], g)
	}
	for len(e.groupsBySize) <= len(g.tags) {
		e.groupsBySize = append(e.groupsBySize, 0)
	}
	e.groupsBySize[len(g.tags)]++
	e.groups[key] = g
	return g
}

// dequeue takes a queued task out of the queue index enqueue put it in: its tags' orders
// under RulesPlatform, else its group, dropping the group when empty.
func (e *Engine) dequeue(t *task) {
	if e.platform() {
		e.platDequeue(t)
		return
	}
	g := t.g
	if g == nil || t.heapIdx < 0 {
		return
	}
	g.removeAt(int(t.heapIdx))
	t.g = nil
	if len(g.heap) > 0 {
		return
	}
	delete(e.groups, g.key)
	e.groupsBySize[len(g.tags)]--
	if k, ok := packSet(g.tags); ok {
		dropGroup(e.bySmallSet, k, g)
	} else {
		dropGroup(e.byTagSet, g.setKey, g)
	}
	e.byKeyTag[g.keyTag].remove(g.keyPos, func(x *group) *int32 { return &x.keyPos })
	if len(e.byKeyTag[g.keyTag].items) == 0 {
		pos := e.keyTagPos[g.keyTag]
		last := int32(len(e.keyTags) - 1)
		moved := e.keyTags[last]
		e.keyTags[pos] = moved
		e.keyTagPos[moved] = pos
		e.keyTags = e.keyTags[:last]
		e.keyTagPos[g.keyTag] = -1
	}
	if e.anyTag() {
		for i, tag := range g.tags {
			e.byTag[tag].remove(g.tagPos[i], groupTagSlot(tag))
		}
	}
}

func groupTagSlot(tag int32) func(*group) *int32 {
	return func(x *group) *int32 {
		i, _ := slices.BinarySearch(x.tags, tag)
		return &x.tagPos[i]
	}
}

// withdraw takes a pending offer back from its worker; the caller sets the new state.
func (e *Engine) withdraw(t *task) {
	w := t.w
	if i := slices.Index(w.pending, t); i >= 0 {
		w.pending = slices.Delete(w.pending, i, i+1)
	}
	if t.dlIdx >= 0 {
		e.deadlines.remove(t)
	}
	t.w = nil
	t.manual = false
	t.deadline = 0
	e.setReady(w)
	e.markWorker(w)
}

// requeue puts a task back in the queue at its original place in the order.
func (e *Engine) requeue(t *task) {
	t.status = StatusQueued
	t.workerID = ""
	if len(e.vetoesAsSent) > 0 {
		e.restoreVetoes(t) // platForget
	}
	e.enqueue(t)
	e.markTask(t)
}

// expire handles an offer that ran out (task.expired).
func (e *Engine) expire(t *task, res *Result) {
	w := t.w
	e.withdraw(t)
	e.reward(w, t, RewardExpiry)
	e.learnOutcome(t, outcomeExpire)
	if t.esc != nil && t.esc.OnNoResponse == NoResponseBlock {
		t.rejected = append(t.rejected, w.id)
	}
	e.taskEvent(res, EventTaskExpired, t, w.id)
	if e.escalateOnExpiry(t, res) {
		return
	}
	e.requeue(t)
}

// offer makes a task pending for a worker (task.matched) and records the decision
// explained in e.marks and e.reasons.
func (e *Engine) offer(t *task, w *worker, mode Mode, res *Result) {
	e.dequeue(t)
	t.status = StatusPending
	t.workerID = w.id
	t.w = w
	t.deadline = e.now + int64(e.offerTimeout(t))
	e.deadlines.push(t)
	w.pending = append(w.pending, t)
	w.lastMatch = e.now
	w.matched = true
	e.setReady(w)
	id := e.record(t, w, mode)
	res.DecisionIDs = append(res.DecisionIDs, id)
	ev := e.taskEvent(res, EventTaskMatched, t, w.id)
	ev.DecisionID = id
	ev.ExpiresAt = time.Unix(0, t.deadline).In(e.nowTime.Location())
}

// dropGroup removes g from m[k], deleting the entry when it empties.
func dropGroup[K comparable](m map[K][]*group, k K, g *group) {
	same := m[k]
	i := slices.Index(same, g)
	same = slices.Delete(same, i, i+1)
	if len(same) == 0 {
		delete(m, k)
		return
	}
	m[k] = same
}

// packSet packs a tag set of up to three ids below 2^21 into one integer map key, which is
// cheaper to hash than a string; larger sets use the string key.
func packSet(ids []int32) (uint64, bool) {
	if len(ids) > 3 {
		return 0, false
	}
	var k uint64
	for _, id := range ids {
		if id >= 1<<21 {
			return 0, false
		}
		// +1 keeps the sets {0} and {0, 0...} apart from shorter ones.
		k = k<<21 | uint64(id+1)
	}
	return k, true
}
