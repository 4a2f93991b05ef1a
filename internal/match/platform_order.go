package match

import (
	"cmp"
	"slices"
	"strings"
)

// prioOrder holds the queued tasks of one tag ordered by priority, lowest first, then id as
// a string: the order a worker's window is read in (platform_window.go). It is a list of
// sorted chunks, so an insert or a removal moves at most one chunk and a seek is two binary
// searches, whatever the number of tasks of a common tag.
type prioOrder struct {
	chunks [][]*task
	n      int
}

// orderChunk is the most tasks a chunk holds before it splits in two.
const orderChunk = 256

// prioCmp orders tasks by priority, then id as a string.
func prioCmp(a *task, prio float64, id string) int {
	if c := cmp.Compare(a.priority, prio); c != 0 {
		return c
	}
	return strings.Compare(a.id, id)
}

// chunkFor is the index of the first chunk whose last task is not before (prio, id), or
// the last chunk when every one is.
func (o *prioOrder) chunkFor(prio float64, id string) int {
	i, _ := slices.BinarySearchFunc(o.chunks, 0, func(c []*task, _ int) int {
		return prioCmp(c[len(c)-1], prio, id)
	})
	return min(i, len(o.chunks)-1)
}

func (o *prioOrder) add(t *task) {
	o.n++
	if len(o.chunks) == 0 {
		o.chunks = append(o.chunks, append(make([]*task, 0, orderChunk), t))
		return
	}
	ci := o.chunkFor(t.priority, t.id)
	c := o.chunks[ci]
	i, _ := slices.BinarySearchFunc(c, t, func(x, t *task) int { return prioCmp(x, t.priority, t.id) })
	c = slices.Insert(c, i, t)
	if len(c) <= orderChunk {
		o.chunks[ci] = c
		return
	}
	half := len(c) / 2
	upper := make([]*task, len(c)-half, orderChunk)
	copy(upper, c[half:])
	clear(c[half:])
	o.chunks[ci] = c[:half]
	o.chunks = slices.Insert(o.chunks, ci+1, upper)
}

// remove takes t out; t's priority and id must be those it was added with.
func (o *prioOrder) remove(t *task) {
	if len(o.chunks) == 0 {
		return
	}
	ci := o.chunkFor(t.priority, t.id)
	c := o.chunks[ci]
	i, found := slices.BinarySearchFunc(c, t, func(x, t *task) int { return prioCmp(x, t.priority, t.id) })
	if !found || c[i] != t {
		return
	}
	o.n--
	c = slices.Delete(c, i, i+1)
	if len(c) == 0 {
		o.chunks = slices.Delete(o.chunks, ci, ci+1)
		return
	}
	o.chunks[ci] = c
}

// orderPos is a position in a prioOrder: chunk and index within it.
type orderPos struct{ c, i int }

func (o *prioOrder) at(p orderPos) (*task, bool) {
	if p.c >= len(o.chunks) {
		return nil, false
	}
	return o.chunks[p.c][p.i], true
}

func (o *prioOrder) next(p orderPos) orderPos {
	p.i++
	if p.i >= len(o.chunks[p.c]) {
		p.c, p.i = p.c+1, 0
	}
	return p
}

// firstAbove is the first task with a priority above prio, if any.
func (o *prioOrder) firstAbove(prio float64) (*task, bool) {
	ci, _ := slices.BinarySearchFunc(o.chunks, prio, func(c []*task, p float64) int {
		if c[len(c)-1].priority <= p {
			return -1
		}
		return 1
	})
	if ci >= len(o.chunks) {
		return nil, false
	}
	c := o.chunks[ci]
	i, _ := slices.BinarySearchFunc(c, prio, func(x *task, p float64) int {
		if x.priority <= p {
			return -1
		}
		return 1
	})
	return c[i], true
}
