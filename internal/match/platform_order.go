package match

import (
	"encoding/binary"
	"slices"
)

// prioOrder holds the queued tasks of one tag ordered by priority, lowest first, then id as
// a string: the order a worker's window is read in (platform_window.go). It is a list of
// sorted chunks, so an insert or a removal moves at most one chunk and a seek is two binary
// searches, whatever the number of tasks of a common tag.
//
// Each entry carries a copy of what a window reads of its task (priority, the id's first
// bytes, the tag ids, whether anything beyond tags applies), so reading a window walks
// contiguous chunks and rarely touches a task: at 100,000 queued tasks the tasks are far
// apart in memory, and each one touched costs a cache miss or three.
type prioOrder struct {
	chunks [][]orderEntry
	// lasts[i] is the last entry of chunks[i], copied: a seek's binary search over the
	// chunks reads this one array instead of a cache line in each chunk it probes.
	lasts []orderBound
	n     int
}

// orderBound is an entry's place in the order: priority, then id.
type orderBound struct {
	prio float64
	key  idKey
	t    *task
}

func boundOf(en *orderEntry) orderBound { return orderBound{prio: en.prio, key: en.key, t: en.t} }

// orderEntry is one queued task in a tag's order.
type orderEntry struct {
	t    *task
	prio float64
	key  idKey
	// The task's tag ids when plain (sorted, ntags of them).
	tags  [plainTags]int32
	ntags uint8
	// plain: no veto, rejection, booking, routing rule or threshold, at most plainTags
	// tags. Everything a window and the score read is then in the entry. The fields it
	// stands for change only while the task is out of the orders, except a booking,
	// which re-indexes the task (Engine.Book).
	plain bool
}

// plainTags is the most tags an entry copies; a task with more is read through its pointer.
const plainTags = 3

// idKey is a task id's first 16 bytes, big-endian, zero-padded: two ids whose keys differ
// compare as their keys do; equal keys need the ids themselves (idLess).
type idKey [2]uint64

func keyOf(id string) idKey {
	var b [16]byte
	copy(b[:], id)
	return idKey{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// idLess reports whether task a's id sorts before task b's as a string, through their keys
// (ka, kb), which settle nearly every comparison without reading the tasks.
func idLess(ka idKey, a *task, kb idKey, b *task) bool {
	if ka[0] != kb[0] {
		return ka[0] < kb[0]
	}
	if ka[1] != kb[1] {
		return ka[1] < kb[1]
	}
	return a.id < b.id
}

// orderEntryOf copies what a window reads of a queued task.
func orderEntryOf(t *task) orderEntry {
	en := orderEntry{t: t, prio: t.priority, key: t.key}
	en.plain = len(t.tags) <= plainTags && len(t.tags) == len(t.tagsIn) && t.rt == nil && len(t.thr) == 0 &&
		len(t.vetoed) == 0 && len(t.rejected) == 0 && t.booked == ""
	if en.plain {
		en.ntags = uint8(copy(en.tags[:], t.tags))
	}
	return en
}

// orderChunk is the most tasks a chunk holds before it splits in two. Small, because an
// entry is 48 bytes and an insert or a removal moves the rest of its chunk; the offered
// tasks come from the heads of the orders, so a removal moves nearly all of one.
const orderChunk = 64

// chunkFor is the index of the first chunk whose last task is not before t, or the last
// chunk when every one is.
func (o *prioOrder) chunkFor(prio float64, key idKey, t *task) int {
	lo, hi := 0, len(o.lasts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		b := &o.lasts[m]
		if boundBefore(b.prio, b.key, b.t, prio, key, t) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return min(lo, len(o.chunks)-1)
}

// findIn is the position of t in chunk c, or where it would go, and whether it is there.
func findIn(c []orderEntry, prio float64, key idKey, t *task) (int, bool) {
	lo, hi := 0, len(c)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if boundBefore(c[m].prio, c[m].key, c[m].t, prio, key, t) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(c) && c[lo].t == t
}

// boundBefore reports whether (pa, a) comes before (pb, b) in the order.
func boundBefore(pa float64, ka idKey, a *task, pb float64, kb idKey, b *task) bool {
	if pa != pb {
		return pa < pb
	}
	return idLess(ka, a, kb, b)
}

func (o *prioOrder) add(t *task) {
	o.n++
	en := orderEntryOf(t)
	if len(o.chunks) == 0 {
		o.chunks = append(o.chunks, append(make([]orderEntry, 0, orderChunk), en))
		o.lasts = append(o.lasts, boundOf(&en))
		return
	}
	ci := o.chunkFor(en.prio, en.key, t)
	c := o.chunks[ci]
	i, _ := findIn(c, en.prio, en.key, t)
	c = slices.Insert(c, i, en)
	if i == len(c)-1 {
		o.lasts[ci] = boundOf(&en)
	}
	if len(c) <= orderChunk {
		o.chunks[ci] = c
		return
	}
	half := len(c) / 2
	upper := make([]orderEntry, len(c)-half, orderChunk)
	copy(upper, c[half:])
	clear(c[half:])
	o.chunks[ci] = c[:half]
	o.chunks = slices.Insert(o.chunks, ci+1, upper)
	o.lasts = slices.Insert(o.lasts, ci, boundOf(&c[half-1]))
}

// remove takes t out; t's priority and id must be those it was added with.
func (o *prioOrder) remove(t *task) {
	if len(o.chunks) == 0 {
		return
	}
	ci := o.chunkFor(t.priority, t.key, t)
	c := o.chunks[ci]
	i, found := findIn(c, t.priority, t.key, t)
	if !found || c[i].t != t {
		return
	}
	o.n--
	c = slices.Delete(c, i, i+1)
	if len(c) == 0 {
		o.chunks = slices.Delete(o.chunks, ci, ci+1)
		o.lasts = slices.Delete(o.lasts, ci, ci+1)
		return
	}
	if i == len(c) {
		o.lasts[ci] = boundOf(&c[i-1])
	}
	o.chunks[ci] = c
}

// orderPos is a position in a prioOrder: chunk and index within it.
type orderPos struct{ c, i int }

// firstAbove is the first entry with a priority above prio, if any.
func (o *prioOrder) firstAbove(prio float64) (*orderEntry, bool) {
	ci, _ := slices.BinarySearchFunc(o.chunks, prio, func(c []orderEntry, p float64) int {
		if c[len(c)-1].prio <= p {
			return -1
		}
		return 1
	})
	if ci >= len(o.chunks) {
		return nil, false
	}
	c := o.chunks[ci]
	i, _ := slices.BinarySearchFunc(c, prio, func(x orderEntry, p float64) int {
		if x.prio <= p {
			return -1
		}
		return 1
	})
	return &c[i], true
}
