package match

// settle runs matching to a fixed point. Only dirty tasks (new or requeued) and dirty
// workers (gained capacity, availability, tags or weights) can make a match possible; each
// round offers the first task in task order among those, to its best worker.
func (e *Engine) settle(res *Result) {
	if e.platform() {
		e.platformPass(res)
		return
	}
	for {
		var bestT *task
		var bestW *worker
		n := 0
		for _, t := range e.dirtyTasks {
			if t.status != StatusQueued {
				t.dirty = false
				continue
			}
			w := e.bestWorker(t)
			if w == nil {
				t.dirty = false
				continue
			}
			e.dirtyTasks[n] = t
			n++
			if bestT == nil || taskBefore(t, bestT) {
				bestT, bestW = t, w
			}
		}
		clear(e.dirtyTasks[n:])
		e.dirtyTasks = e.dirtyTasks[:n]
		n = 0
		for _, w := range e.dirtyWorkers {
			if w.removed || !w.ready {
				w.dirty = false
				continue
			}
			t := e.bestTaskFor(w)
			if t == nil {
				w.dirty = false
				continue
			}
			e.dirtyWorkers[n] = w
			n++
			if bestT == nil || taskBefore(t, bestT) {
				bestT, bestW = t, nil
			}
		}
		clear(e.dirtyWorkers[n:])
		e.dirtyWorkers = e.dirtyWorkers[:n]
		if bestT == nil {
			return
		}
		if bestW == nil || e.scan.task != bestT {
			bestW = e.bestWorker(bestT)
		}
		if bestW == nil {
			// Cannot happen: a dirty worker found bestT eligible. Stop rather than loop.
			e.clearDirty()
			return
		}
		e.decide()
		e.offer(bestT, bestW, e.cfg.Mode, res)
	}
}

func (e *Engine) clearDirty() {
	for _, t := range e.dirtyTasks {
		t.dirty = false
	}
	for _, w := range e.dirtyWorkers {
		w.dirty = false
	}
	clear(e.dirtyTasks)
	clear(e.dirtyWorkers)
	e.dirtyTasks, e.dirtyWorkers = e.dirtyTasks[:0], e.dirtyWorkers[:0]
}
