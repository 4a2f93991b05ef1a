package match

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGroupFirstForOrderAndBound pins what a queue group's scan answers: the first task in
// queue order (priority descending, then first queued, then creation) that the filter
// accepts, provided it comes strictly before the bound; nothing for an empty group, a group
// whose head is not before the bound, or one whose accepted tasks all come at or after it.
// The walk leaves the heap as it was.
func TestGroupFirstForOrderAndBound(t *testing.T) {
	// Created in seq order 1..5; t5 has the highest priority, t4 the next, so the queue
	// order is t5, t4, t1, t2, t3.
	mk := func() map[string]*task {
		return map[string]*task{
			"t1": {id: "t1", seq: 1, queued: 10},
			"t2": {id: "t2", seq: 2, queued: 10},
			"t3": {id: "t3", seq: 3, queued: 20},
			"t4": {id: "t4", seq: 4, queued: 30, priority: 1},
			"t5": {id: "t5", seq: 5, queued: 30, priority: 2},
			// outside every group, used only as a bound
			"late":  {id: "late", seq: 9, queued: 99},
			"early": {id: "early", seq: 0, queued: 5, priority: 3},
		}
	}
	all := []string{"t1", "t2", "t3", "t4", "t5"}
	cases := []struct {
		name   string
		group  []string // pushed in this order
		accept []string // nil: every task
		bound  string   // "": none
		want   string   // "": nil
	}{
		{name: "empty group", group: nil, want: ""},
		{name: "empty group with a bound", group: nil, bound: "late", want: ""},
		{name: "one task", group: []string{"t1"}, want: "t1"},
		{name: "one task before the bound", group: []string{"t1"}, bound: "t2", want: "t1"},
		{name: "one task that is the bound", group: []string{"t1"}, bound: "t1", want: ""},
		{name: "one task after the bound", group: []string{"t2"}, bound: "t1", want: ""},
		{name: "head first, whatever the push order", group: all, want: "t5"},
		{name: "head refused: the next in order", group: all, accept: []string{"t1", "t2", "t3"}, want: "t1"},
		{name: "only the last accepted", group: all, accept: []string{"t3"}, want: "t3"},
		{name: "none accepted", group: all, accept: []string{}, want: ""},
		{name: "head not before the bound", group: all, bound: "early", want: ""},
		{name: "head is the bound", group: all, bound: "t5", want: ""},
		{name: "accepted task at the bound", group: all, accept: []string{"t2"}, bound: "t2", want: ""},
		{name: "accepted task after the bound", group: all, accept: []string{"t3"}, bound: "t2", want: ""},
		{name: "accepted task before the bound", group: all, accept: []string{"t2"}, bound: "t3", want: "t2"},
		{name: "accepted head before the bound", group: all, bound: "late", want: "t5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := mk()
			g := &group{}
			for _, id := range tc.group {
				g.push(ts[id])
			}
			before := slices.Clone(g.heap)
			ok := func(x *task) bool { return tc.accept == nil || slices.Contains(tc.accept, x.id) }
			var bound *task
			if tc.bound != "" {
				bound = ts[tc.bound]
			}
			var scratch []int32
			got := ""
			if x := g.firstFor(ok, bound, &scratch); x != nil {
				got = x.id
			}
			if got != tc.want {
				t.Errorf("firstFor = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff(before, g.heap, cmp.Comparer(func(a, b *task) bool { return a == b })); diff != "" {
				t.Errorf("the walk changed the heap (-before +after):\n%s", diff)
			}
		})
	}
}
