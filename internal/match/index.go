package match

import (
	"encoding/binary"
	"math"
	"slices"
)

// posSet is an unordered set with O(1) add and remove. Each member keeps its own position
// (found through slot), so removal swaps the last member into the hole. Iteration order
// depends only on the order of adds and removes, never on map order, which keeps every scan
// deterministic.
type posSet[T any] struct {
	items []T
}

func (s *posSet[T]) add(v T, slot *int32) {
	*slot = int32(len(s.items))
	s.items = append(s.items, v)
}

func (s *posSet[T]) remove(pos int32, slotOf func(T) *int32) {
	last := len(s.items) - 1
	if int(pos) != last {
		moved := s.items[last]
		s.items[pos] = moved
		*slotOf(moved) = pos
	}
	var zero T
	s.items[last] = zero
	s.items = s.items[:last]
}

// threshold is one skill threshold of a task, by interned tag.
type threshold struct {
	tag int32
	min float64
}

// group holds the queued tasks that share one tag set and one set of skill thresholds:
// eligibility for them is the same except for per-task vetoes and rejections. Its heap
// keeps them in task order.
type group struct {
	key    string
	setKey string  // key of the tag set alone, for Engine.byTagSet
	tags   []int32 // sorted ascending, unique
	thr    []threshold
	heap   []*task
	// headPrio and headQueued copy heap[0]'s order fields so a scan can rule a group out
	// without touching its tasks (one cache miss less per group).
	headPrio   float64
	headQueued int64
	keyTag     int32
	keyPos     int32   // position in Engine.byKeyTag[keyTag]
	tagPos     []int32 // positions in Engine.byTag[tags[i]], any-tag mode only
	visit      uint64
}

// taskBefore is the queue order: priority descending, first queued ascending, then creation
// order. Tasks created in one clock instant (a manual clock, or the same nanosecond) keep the
// order they were created in rather than falling to their random ids; a requeued task keeps
// both its first-queued time and its sequence, so it keeps its place.
func taskBefore(a, b *task) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.queued != b.queued {
		return a.queued < b.queued
	}
	return a.seq < b.seq
}

func (g *group) push(t *task) {
	t.heapIdx = int32(len(g.heap))
	g.heap = append(g.heap, t)
	g.up(int(t.heapIdx))
	g.syncHead()
}

func (g *group) syncHead() {
	if len(g.heap) > 0 {
		g.headPrio, g.headQueued = g.heap[0].priority, g.heap[0].queued
	}
}

// headBefore reports whether the group's first task comes before t in task order.
func (g *group) headBefore(t *task) bool {
	if g.headPrio != t.priority {
		return g.headPrio > t.priority
	}
	if g.headQueued != t.queued {
		return g.headQueued < t.queued
	}
	return g.heap[0].seq < t.seq
}

func (g *group) removeAt(i int) {
	last := len(g.heap) - 1
	t := g.heap[i]
	if i != last {
		g.heap[i] = g.heap[last]
		g.heap[i].heapIdx = int32(i)
	}
	g.heap[last] = nil
	g.heap = g.heap[:last]
	if i != last {
		g.fix(i)
	}
	t.heapIdx = -1
	g.syncHead()
}

func (g *group) fix(i int) {
	if !g.down(i) {
		g.up(i)
	}
	g.syncHead()
}

func (g *group) up(i int) {
	h := g.heap
	for i > 0 {
		p := (i - 1) / 2
		if !taskBefore(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		h[i].heapIdx, h[p].heapIdx = int32(i), int32(p)
		i = p
	}
}

func (g *group) down(i int) bool {
	h := g.heap
	start := i
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && taskBefore(h[r], h[l]) {
			m = r
		}
		if !taskBefore(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		h[i].heapIdx, h[m].heapIdx = int32(i), int32(m)
		i = m
	}
	return i > start
}

// firstFor returns the first task in queue order that ok accepts and that comes before
// bound (nil: no bound). It walks the heap best-first, so it looks only at the tasks that
// are refused plus their children, not at the whole group.
func (g *group) firstFor(ok func(*task) bool, bound *task, scratch *[]int32) *task {
	if len(g.heap) == 0 {
		return nil
	}
	h := g.heap
	if bound != nil && !taskBefore(h[0], bound) {
		return nil
	}
	if ok(h[0]) {
		return h[0]
	}
	fr := frontier{idx: (*scratch)[:0], size: int32(len(h)), less: func(a, b int32) bool { return taskBefore(h[a], h[b]) }}
	fr.pushChildren(0)
	var found *task
	for len(fr.idx) > 0 {
		i := fr.pop()
		t := h[i]
		if bound != nil && !taskBefore(t, bound) {
			break
		}
		if ok(t) {
			found = t
			break
		}
		fr.pushChildren(i)
	}
	*scratch = fr.idx
	return found
}

// groupKey encodes a tag set and thresholds; buf is reused between calls.
func groupKey(buf []byte, tags []int32, thr []threshold) []byte {
	buf = buf[:0]
	for _, t := range tags {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(t))
	}
	if len(thr) > 0 {
		// A separator that no tag id can produce keeps "tags" and "thresholds" apart.
		buf = binary.LittleEndian.AppendUint32(buf, math.MaxUint32)
		for _, th := range thr {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(th.tag))
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(th.min))
		}
	}
	return buf
}

// deadlineHeap orders pending offers by expiry, then task creation order. Each entry
// carries its task's deadline and creation number, so sifting compares entries in place
// instead of reading a task (most of them out of the cache) per comparison.
type deadlineHeap struct {
	h []dlEntry
}

type dlEntry struct {
	deadline int64
	seq      uint64
	t        *task
}

func dlBefore(a, b *dlEntry) bool {
	if a.deadline != b.deadline {
		return a.deadline < b.deadline
	}
	return a.seq < b.seq
}

func (d *deadlineHeap) push(t *task) {
	d.h = append(d.h, dlEntry{})
	d.up(len(d.h)-1, dlEntry{deadline: t.deadline, seq: t.seq, t: t})
}

// place puts x at i and tells its task where it is.
func (d *deadlineHeap) place(i int, x dlEntry) {
	d.h[i] = x
	x.t.dlIdx = int32(i)
}

// up moves x from the hole at i toward the root to its place.
func (d *deadlineHeap) up(i int, x dlEntry) {
	for i > 0 {
		p := (i - 1) / 2
		if !dlBefore(&x, &d.h[p]) {
			break
		}
		d.place(i, d.h[p])
		i = p
	}
	d.place(i, x)
}

// down moves x from the hole at i toward the leaves to its place; false when it stays.
func (d *deadlineHeap) down(i int, x dlEntry) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(d.h) {
			break
		}
		m := l
		if r := l + 1; r < len(d.h) && dlBefore(&d.h[r], &d.h[l]) {
			m = r
		}
		if !dlBefore(&d.h[m], &x) {
			break
		}
		d.place(i, d.h[m])
		i = m
	}
	d.place(i, x)
	return i > start
}

func (d *deadlineHeap) remove(t *task) {
	i := int(t.dlIdx)
	last := len(d.h) - 1
	x := d.h[last]
	d.h[last] = dlEntry{}
	d.h = d.h[:last]
	t.dlIdx = -1
	if i < last && !d.down(i, x) {
		d.up(i, x)
	}
}

func containsID(ids []string, id string) bool { return slices.Contains(ids, id) }
