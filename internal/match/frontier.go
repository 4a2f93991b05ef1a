package match

// frontier walks a binary heap in order without changing it. It is itself a small heap of
// indices into the walked heap, holding the nodes whose parents were visited, so a walk that
// stops after k nodes costs O(k log k) however large the walked heap is. Both the queued
// task groups and the ready-worker heaps are walked this way.
type frontier struct {
	idx  []int32
	size int32                 // length of the walked heap
	less func(a, b int32) bool // the walked heap's order, on its indices
}

// push adds node i of the walked heap; an index past its end is ignored.
func (f *frontier) push(i int32) {
	if i >= f.size {
		return
	}
	f.idx = append(f.idx, i)
	for c := len(f.idx) - 1; c > 0; {
		p := (c - 1) / 2
		if !f.less(f.idx[c], f.idx[p]) {
			break
		}
		f.idx[c], f.idx[p] = f.idx[p], f.idx[c]
		c = p
	}
}

// pushChildren adds the two children of node i.
func (f *frontier) pushChildren(i int32) {
	f.push(2*i + 1)
	f.push(2*i + 2)
}

// pop removes and returns the first node in the walked heap's order; the frontier must not
// be empty.
func (f *frontier) pop() int32 {
	top := f.idx[0]
	last := len(f.idx) - 1
	f.idx[0] = f.idx[last]
	f.idx = f.idx[:last]
	for c := 0; ; {
		l := 2*c + 1
		if l >= len(f.idx) {
			break
		}
		m := l
		if r := l + 1; r < len(f.idx) && f.less(f.idx[r], f.idx[l]) {
			m = r
		}
		if !f.less(f.idx[m], f.idx[c]) {
			break
		}
		f.idx[c], f.idx[m] = f.idx[m], f.idx[c]
		c = m
	}
	return top
}
