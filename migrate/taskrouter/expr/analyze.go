package expr

import (
	"strconv"
)

// Usage says what an expression reads, for deciding whether it can be translated.
type Usage struct {
	// Time: it reads taskrouter.currentTime, currentHour, currentMin or dayOfWeek, so its
	// answer changes with the time of day (time-of-day routing).
	Time bool
	// CrossScope: one comparison has a task key on one side and a worker key on the other
	// (worker.languages HAS task.language), so membership depends on each task.
	CrossScope bool
	// KnownWorker: a comparison reads the worker's identity (worker.sid, worker.friendly_name,
	// worker.contact_uri or a worker attribute named id/sid) against a task value or a
	// constant: routing to named workers.
	KnownWorker bool
}

// identity names the worker properties and attributes that name one worker.
var identity = map[string]bool{"sid": true, "friendly_name": true, "contact_uri": true, "id": true}

// Analyze reports what n reads; def is the scope of keys without a prefix.
func Analyze(n Node, def Scope) Usage {
	var u Usage
	var visit func(Node)
	visit = func(n Node) {
		switch n := n.(type) {
		case *Or:
			visit(n.L)
			visit(n.R)
		case *And:
			visit(n.L)
			visit(n.R)
		case *Not:
			visit(n.X)
		case *Compare:
			ls, rs := scopes(n.L, def), scopes(n.R, def)
			all := ls | rs
			if all&readsTime != 0 {
				u.Time = true
			}
			if (ls&readsTask != 0 && rs&readsWorker != 0) || (ls&readsWorker != 0 && rs&readsTask != 0) {
				u.CrossScope = true
			}
			if (ls|rs)&readsIdentity != 0 {
				u.KnownWorker = true
			}
		}
	}
	visit(n)
	return u
}

type reads int

const (
	readsTask reads = 1 << iota
	readsWorker
	readsTime
	readsIdentity
)

func scopes(o Operand, def Scope) reads {
	switch o := o.(type) {
	case *List:
		var r reads
		for _, it := range o.Items {
			r |= scopes(it, def)
		}
		return r
	case *Key:
		s := o.Scope
		if s == ScopeDefault {
			s = def
		}
		switch s {
		case ScopeTask:
			return readsTask
		case ScopeWorker:
			if name, ok := o.Path[0].(string); ok && len(o.Path) == 1 && identity[name] {
				return readsWorker | readsIdentity
			}
			return readsWorker
		case ScopeTaskRouter:
			return readsTime
		}
	}
	return 0
}

// Term is one conjunct of a skill expression: Key HAS Value (the worker's array attribute
// holds it) or Key == Value (the attribute equals it).
type Term struct {
	Key   string // the worker attribute's path, e.g. "skills", "routing.team"
	Op    Op     // OpHas or OpEq
	Value string // the constant, as text
	// Source is the comparison the term came from, to evaluate the term on its own.
	Source *Compare `json:"-"`
}

// Tag is the tag that stands for the term on a worker here: "skills:support" for HAS,
// "team=sales" for ==.
func (t Term) Tag() string {
	if t.Op == OpHas {
		return t.Key + ":" + t.Value
	}
	return t.Key + "=" + t.Value
}

// SkillTerms returns the terms of n when n is a conjunction (AND only) of worker-key HAS
// constant or worker-key == constant comparisons; ok is false for anything else.
func SkillTerms(n Node, def Scope) (terms []Term, ok bool) {
	var visit func(Node) bool
	visit = func(n Node) bool {
		switch n := n.(type) {
		case *And:
			return visit(n.L) && visit(n.R)
		case *Compare:
			if n.Op != OpHas && n.Op != OpEq {
				return false
			}
			k, c := asKeyConst(n.L, n.R)
			if k == nil || c == nil {
				return false
			}
			s := k.Scope
			if s == ScopeDefault {
				s = def
			}
			if s != ScopeWorker {
				return false
			}
			if name, isName := k.Path[0].(string); isName && len(k.Path) == 1 && identity[name] {
				return false
			}
			terms = append(terms, Term{Key: k.Name(), Op: n.Op, Value: constText(c),
				Source: &Compare{Op: n.Op, L: &Key{Scope: ScopeWorker, Path: k.Path, At: k.At}, R: c, At: n.At}})
			return true
		}
		return false
	}
	if !visit(n) {
		return nil, false
	}
	return terms, true
}

// asKeyConst returns the key and the constant of a comparison with one of each (HAS only
// with the key on the left).
func asKeyConst(l, r Operand) (*Key, *Const) {
	if k, ok := l.(*Key); ok {
		if c, ok := r.(*Const); ok {
			return k, c
		}
	}
	return nil, nil
}

func constText(c *Const) string {
	switch v := c.Value.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64) // mutation:ignore: every negative precision is the shortest form
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// IsTrue reports whether n is a comparison of two equal constants ("1==1"), TaskRouter's
// way of writing "every worker" or "every task".
func IsTrue(n Node) bool {
	c, ok := n.(*Compare)
	if !ok {
		return false
	}
	_, lk := c.L.(*Const)
	_, rk := c.R.(*Const)
	return lk && rk && Eval(c, &Env{})
}
