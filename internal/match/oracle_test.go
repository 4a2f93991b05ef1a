package match

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// oracleWeight resolves a worker's weight for a tag from its public view, written
// independently of the engine: exact entry, else the longest matching pattern, else 1 when
// the tag is in its tags.
func oracleWeight(w WorkerDetail, tag string) (weight float64, explicit, carried bool) {
	inTags := slices.Contains(w.Tags, tag)
	if v, ok := w.RoutingWeights[tag]; ok {
		return v, true, inTags || v > 0
	}
	best, bv := -1, 0.0
	for k, v := range w.RoutingWeights {
		if prefix, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(tag, prefix) && len(prefix) > best {
			best, bv = len(prefix), v
		}
	}
	if best >= 0 {
		return bv, true, inTags || bv > 0
	}
	if inTags {
		return 1, false, true
	}
	return 0, false, false
}

// oracleIneligible returns why w may not get t ("" when it may). With afterOffer the cap
// check allows the offer just made (depth <= cap instead of depth < cap).
func (p *propRun) oracleIneligible(w WorkerDetail, t Task, afterOffer bool) string {
	limit := p.cfg.DefaultMaxBacklog
	if w.MaxBacklogSize != nil {
		limit = *w.MaxBacklogSize
	}
	switch {
	case !w.Available:
		return "unavailable"
	case w.OnBreak:
		return "on break"
	case afterOffer && w.QueueDepth > limit, !afterOffer && w.QueueDepth >= limit:
		return fmt.Sprintf("cap %d depth %d", limit, w.QueueDepth)
	case slices.Contains(t.VetoedWorkers, w.ID):
		return "vetoed"
	case slices.Contains(t.RejectedBy, w.ID):
		return "rejected"
	}
	carriedAny := false
	for _, tag := range t.Tags {
		weight, explicit, carried := oracleWeight(w, tag)
		if explicit && weight == 0 {
			return "zero weight " + tag
		}
		if carried {
			carriedAny = true
		} else if !p.cfg.AnyTagEligibility {
			return "missing " + tag
		}
	}
	if !carriedAny {
		return "no tag"
	}
	for tag, minimum := range t.SkillThresholds {
		weight, _, carried := oracleWeight(w, tag)
		if !carried {
			weight = 0
		}
		if weight < minimum {
			return "threshold " + tag
		}
	}
	if why := oracleRouting(w, t, p.e.Now()); why != "" {
		return why
	}
	l := p.cfg.Learning
	if l.LearnedVeto && !l.ShadowMode && !l.Disabled {
		stats, _ := p.e.WorkerStats(w.ID)
		for _, st := range stats {
			if slices.Contains(t.Tags, st.Tag) && st.Count >= l.LearnedVetoMinSamples && st.MeanReward <= l.LearnedVetoThreshold {
				return "learned veto " + st.Tag
			}
		}
	}
	return ""
}

// take returns the decisions a command made, as built from the explanation, after checking
// that res names exactly them in order and that each still retained reads back unchanged
// from the compact log through Engine.Decision.
func (p *propRun) take(res Result) ([]Decision, error) {
	made := p.made
	p.made = nil
	ids := make([]string, 0, len(made))
	for _, d := range made {
		ids = append(ids, d.ID)
	}
	// slices.Equal and reflect.DeepEqual first, cmp.Diff only for the message: diffing
	// every command of a long walk doubled the test's time.
	if !slices.Equal(ids, res.DecisionIDs) {
		return nil, fmt.Errorf("Result.DecisionIDs (-made +returned):\n%s", cmp.Diff(ids, res.DecisionIDs))
	}
	for _, d := range made {
		if d.Seq+uint64(p.cfg.DecisionRetention) <= p.e.decSeq {
			continue // dropped from the log by a later decision of the same command
		}
		got, ok := p.e.Decision(d.ID)
		if !ok {
			return nil, fmt.Errorf("decision %s is not retained", d.ID)
		}
		if !reflect.DeepEqual(d, got) {
			return nil, fmt.Errorf("decision %s read back (-made +read):\n%s", d.ID, cmp.Diff(d, got))
		}
	}
	return made, nil
}

// checkDecisions: every matching offer went to an eligible worker within its cap, and the
// decision lists the chosen worker first. lenient skips offers that a later expiry in the
// same Advance already took back.
func (p *propRun) checkDecisions(ds []Decision, lenient bool) error {
	for _, d := range ds {
		if len(d.Candidates) == 0 || len(d.Candidates) > p.cfg.MaxCandidates || d.Candidates[0].WorkerID != d.WorkerID || !d.Candidates[0].Chosen {
			return fmt.Errorf("decision %s: bad candidates %+v", d.ID, d.Candidates)
		}
		if d.Mode == ModeAssign {
			continue
		}
		if p.cfg.Rules == RulesPlatform && !d.Candidates[0].Eligible {
			// The explanation (checkPlatform) must agree with the pass (platEligible).
			return fmt.Errorf("decision %s: chosen %s explained as ineligible: %+v", d.ID, d.WorkerID, d.Candidates[0].Reasons)
		}
		t, err := p.e.Task(d.TaskID)
		if err != nil {
			return err
		}
		if t.Status != StatusPending || t.WorkerID != d.WorkerID {
			if lenient {
				continue
			}
			return fmt.Errorf("decision %s: task %s is %s:%s", d.ID, t.ID, t.Status, t.WorkerID)
		}
		w, err := p.e.Worker(d.WorkerID)
		if err != nil {
			return err
		}
		why := p.oracleIneligible(w, t, true)
		if p.cfg.Rules == RulesPlatform {
			why = p.oraclePlatformWhy(w, t, true)
		}
		if lenient && strings.HasPrefix(why, "learned veto") {
			// A later expiry in the same Advance may have lowered the mean since.
			continue
		}
		if why != "" {
			return fmt.Errorf("decision %s: offered %s to ineligible %s: %s", d.ID, t.ID, w.ID, why)
		}
	}
	return nil
}

// checkState compares the engine with the event model and checks the fixed point.
func (p *propRun) checkState() error {
	workers := map[string]WorkerDetail{}
	for _, id := range p.e.WorkerIDs() {
		w, err := p.e.Worker(id)
		if err != nil {
			return err
		}
		workers[id] = w
		q, _ := p.e.WorkerQueue(id)
		for _, tid := range q {
			if p.model[tid] != "pending:"+id {
				return fmt.Errorf("worker %s queue holds %s which the events say is %q", id, tid, p.model[tid])
			}
		}
	}
	// The queue as the command's one pass read it: what is still queued and what it offered.
	var queued []Task
	for _, id := range p.live {
		if t, err := p.e.Task(id); err == nil && t.Status == StatusQueued {
			queued = append(queued, t)
		}
	}
	for _, d := range p.offered {
		if t, err := p.e.Task(d.TaskID); err == nil {
			queued = append(queued, t)
		}
	}
	live := p.live[:0]
	for _, id := range p.live {
		t, err := p.e.Task(id)
		if err != nil {
			return err
		}
		got := string(t.Status)
		if t.Status == StatusPending || t.Status == StatusAccepted {
			got += ":" + t.WorkerID
		}
		if got != p.model[id] {
			return fmt.Errorf("task %s is %q, the events say %q", id, got, p.model[id])
		}
		if t.Status.Terminal() {
			p.terminal[id] = t.Status
			continue
		}
		live = append(live, id)
		if t.Status != StatusQueued {
			continue
		}
		for _, w := range workers {
			if p.cfg.Rules == RulesPlatform {
				// After a best-match pass a worker below its cap has had every candidate
				// in its window awarded; only a union wider than the window (tasks slide
				// in as others leave), a lost first-come claim or the balanced grant cap
				// leave it one for the next pass.
				if p.cfg.Mode == ModeBestMatch && p.platformReach(w, queued) <= p.cfg.CandidateWindow {
					if why := p.oraclePlatformWhy(w, t, false); why == "" {
						return fmt.Errorf("not a fixed point: queued %s %v could go to %s", id, t.Tags, w.ID)
					}
				}
				continue
			}
			if why := p.oracleIneligible(w, t, false); why == "" {
				return fmt.Errorf("not a fixed point: queued %s %v could go to %s", id, t.Tags, w.ID)
			}
		}
	}
	p.live = live
	if err := checkPathsAgree(p.e); err != nil {
		return err
	}
	for range 3 {
		if len(p.terminal) == 0 {
			break
		}
		id := "t" + fmt.Sprint(1+p.rng.IntN(p.nextTask))
		if want, ok := p.terminal[id]; ok {
			if t, _ := p.e.Task(id); t.Status != want {
				return fmt.Errorf("terminal %s moved from %s to %s", id, want, t.Status)
			}
		}
	}
	return verifyInternal(p.e)
}

// verifyInternal checks the engine's indexes against its objects.
func verifyInternal(e *Engine) error {
	if len(e.dirtyTasks) > 0 || len(e.dirtyWorkers) > 0 {
		return fmt.Errorf("dirty sets not empty after a command")
	}
	readyMembers, waitMembers := 0, 0
	for id, w := range e.workers {
		if w.ready != e.isReady(w) {
			return fmt.Errorf("worker %s ready flag %v, want %v", id, w.ready, e.isReady(w))
		}
		if !slices.Equal(w.idxTags, w.carried) || !w.indexed {
			return fmt.Errorf("worker %s indexed under %v, carries %v", id, w.idxTags, w.carried)
		}
		for i, tag := range w.idxTags {
			if e.all[tag].items[w.allPos[i]] != w {
				return fmt.Errorf("worker %s missing from all[%s]", id, e.tagNames[tag])
			}
			if w.ready && (e.ready[tag].items[w.readyPos[i]].w != w || e.ready[tag].items[w.readyPos[i]].slot != int32(i)) {
				return fmt.Errorf("worker %s missing from ready[%s]", id, e.tagNames[tag])
			}
			// An ordered heap's entry copies the worker's order fields; an unordered
			// one's (RulesPlatform) copies nothing beyond w and slot.
			want := entryOf(w, int32(i))
			if e.platform() {
				want = readyEntry{w: w, slot: int32(i)}
			}
			if w.ready && e.ready[tag].items[w.readyPos[i]] != want {
				return fmt.Errorf("worker %s has a stale entry in ready[%s]", id, e.tagNames[tag])
			}
		}
		if w.mask != tagMask(w) {
			return fmt.Errorf("worker %s tag mask stale", id)
		}
		// The waiting lists serve the every-tag decisions only (syncWaiting).
		if w.isWait != (!w.ready && !e.platform()) {
			return fmt.Errorf("worker %s waiting flag %v, ready %v, under %s", id, w.isWait, w.ready, e.cfg.Rules)
		}
		for i, tag := range w.idxTags {
			if w.isWait && e.waiting[tag].items[w.waitPos[i]] != w {
				return fmt.Errorf("worker %s missing from waiting[%s]", id, e.tagNames[tag])
			}
		}
		if w.isWait {
			waitMembers += len(w.idxTags)
		}
		if w.ready {
			readyMembers += len(w.idxTags)
			if w.posPat && e.readyPat.items[w.rPatPos] != w {
				return fmt.Errorf("worker %s missing from readyPat", id)
			}
		}
		for _, t := range w.pending {
			if t.w != w || t.status != StatusPending {
				return fmt.Errorf("worker %s holds %s in state %s", id, t.id, t.status)
			}
		}
	}
	n := 0
	for tag, h := range e.ready {
		n += len(h.items)
		if h.unordered != e.platform() {
			return fmt.Errorf("ready heap of %s: unordered %v under %s", e.tagNames[tag], h.unordered, e.cfg.Rules)
		}
		for i := 1; i < len(h.items) && !h.unordered; i++ {
			if h.less(i, (i-1)/2) {
				return fmt.Errorf("ready heap of %s out of order", e.tagNames[tag])
			}
		}
	}
	if n != readyMembers {
		return fmt.Errorf("ready index has %d entries, want %d", n, readyMembers)
	}
	if err := verifyRoutes(e); err != nil {
		return err
	}
	n = 0
	for _, ws := range e.waiting {
		n += len(ws.items)
	}
	if n != waitMembers {
		return fmt.Errorf("waiting index has %d entries, want %d", n, waitMembers)
	}
	// The queue index of the rule set (enqueue) holds exactly the queued tasks: the tags'
	// orders under RulesPlatform, which keeps no group (checkWindows compares the orders
	// with a sort); the groups under RulesEveryTag.
	queued, pending := 0, 0
	for _, t := range e.tasks {
		switch t.status {
		case StatusQueued:
			queued++
			if e.platform() != t.platQueued || e.platform() == (t.g != nil) {
				return fmt.Errorf("queued %s: in the tags' orders %v, in a group %v, under %s", t.id, t.platQueued, t.g != nil, e.cfg.Rules)
			}
			if t.g != nil && (t.g.heap[t.heapIdx] != t || e.groups[t.g.key] != t.g) {
				return fmt.Errorf("queued %s not in its group", t.id)
			}
		case StatusPending:
			pending++
			if t.dlIdx < 0 || e.deadlines.h[t.dlIdx] != (dlEntry{deadline: t.deadline, seq: t.seq, t: t}) || !slices.Contains(t.w.pending, t) {
				return fmt.Errorf("pending %s not in deadlines or its worker", t.id)
			}
		}
	}
	inQueue := 0
	if e.platform() {
		entries, want := 0, 0
		for _, o := range e.plat.byTag {
			entries += o.n
		}
		for _, t := range e.tasks {
			if t.platQueued {
				inQueue++
				want += len(t.tags)
			}
		}
		if entries != want {
			return fmt.Errorf("tags' orders hold %d entries, the queued tasks have %d tags", entries, want)
		}
		if len(e.groups)+len(e.bySmallSet)+len(e.byTagSet)+len(e.keyTags) > 0 {
			return fmt.Errorf("%d queue groups under the platform rules, which do not read them", len(e.groups))
		}
	}
	for key, g := range e.groups {
		inQueue += len(g.heap)
		if len(g.heap) == 0 || e.byKeyTag[g.keyTag].items[g.keyPos] != g {
			return fmt.Errorf("group %q empty or not indexed", key)
		}
		if g.headPrio != g.heap[0].priority || g.headQueued != g.heap[0].queued {
			return fmt.Errorf("group %q head cache stale", key)
		}
		for i := 1; i < len(g.heap); i++ {
			if taskBefore(g.heap[i], g.heap[(i-1)/2]) {
				return fmt.Errorf("group %q heap order broken", key)
			}
		}
	}
	if inQueue != queued || len(e.deadlines.h) != pending {
		return fmt.Errorf("queue index holds %d of %d queued; deadlines %d of %d pending", inQueue, queued, len(e.deadlines.h), pending)
	}
	for i := 1; i < len(e.deadlines.h); i++ {
		if dlBefore(&e.deadlines.h[i], &e.deadlines.h[(i-1)/2]) {
			return fmt.Errorf("deadline heap order broken")
		}
	}
	return nil
}

// checkPathsAgree runs check both ways for every worker and queued task: the fast path
// (no explanation; checkPlain for a worker without routing weights, the ordered walks'
// choice) and the explained path that decisions and suggest-workers show. They must agree
// on eligibility and, when eligible, on the score: a threshold or tag rule changed in one
// path only is caught here even when matching alone would not show it.
func checkPathsAgree(e *Engine) error {
	for _, t := range e.taskList {
		if t.status != StatusQueued {
			continue
		}
		s := e.taskSpec(t)
		for _, id := range slices.Sorted(maps.Keys(e.workers)) {
			w := e.workers[id]
			fastOK, fastScore := e.check(w, &s, true, nil)
			var rs []Reason
			explOK, explScore := e.check(w, &s, true, &rs)
			if fastOK != explOK || (fastOK && fastScore != explScore) {
				return fmt.Errorf("check paths disagree on worker %s for task %s (tags %v, thresholds %v): fast %v/%v, explained %v/%v %v",
					id, t.id, t.tagsIn, t.thrIn, fastOK, fastScore, explOK, explScore, rs)
			}
		}
	}
	return nil
}
