package expr

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Env is what an expression is evaluated against. Documents are decoded JSON
// (map[string]any, []any, string, float64, bool, nil): Attributes decodes a TaskRouter
// attributes string into one.
type Env struct {
	// Default is the document a key without a prefix reads: ScopeTask for a workflow
	// filter, ScopeWorker for target_workers and a target's expression.
	Default Scope
	Task    any
	Worker  any
	// WorkerProps are the worker's own properties that worker. keys reach besides its
	// attributes: sid, friendly_name, activity_name, activity_sid, available.
	WorkerProps map[string]any
	// Now is the time the taskrouter.* values are taken from (in UTC). It is never the wall
	// clock: the caller passes the time of the event being evaluated.
	Now time.Time
}

// Attributes decodes a TaskRouter attributes JSON string ("" is an empty object).
func Attributes(s string) (any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("attributes are not JSON: %w", err)
	}
	return v, nil
}

// Eval evaluates n. It never fails: a missing key is null, and a comparison whose operands
// do not fit the operator is false.
func Eval(n Node, env *Env) bool {
	switch n := n.(type) {
	case *Or:
		return Eval(n.L, env) || Eval(n.R, env)
	case *And:
		return Eval(n.L, env) && Eval(n.R, env)
	case *Not:
		return !Eval(n.X, env)
	case *Compare:
		return compare(n.Op, value(n.L, env), value(n.R, env))
	}
	return false
}

// value resolves an operand to a decoded JSON value.
func value(o Operand, env *Env) any {
	switch o := o.(type) {
	case *Const:
		return o.Value
	case *List:
		out := make([]any, len(o.Items))
		for i, it := range o.Items {
			out[i] = value(it, env)
		}
		return out
	case *Key:
		scope := o.Scope
		if scope == ScopeDefault {
			scope = env.Default
		}
		switch scope {
		case ScopeTask:
			return walk(env.Task, o.Path)
		case ScopeWorker:
			if name, ok := o.Path[0].(string); ok && len(o.Path) == 1 {
				if v, ok := env.WorkerProps[name]; ok {
					return v
				}
			}
			return walk(env.Worker, o.Path)
		case ScopeTaskRouter:
			if len(o.Path) == 1 {
				return clockValue(o.Path[0], env.Now)
			}
		}
	}
	return nil
}

// clockValue is one of the taskrouter.* time values, all in UTC: currentTime is HHMM as a
// number, currentHour "HH", currentMin "MM", dayOfWeek "Mon".."Sun".
func clockValue(name any, now time.Time) any {
	now = now.UTC()
	switch name {
	case "currentTime":
		return float64(now.Hour()*100 + now.Minute())
	case "currentHour":
		return fmt.Sprintf("%02d", now.Hour())
	case "currentMin":
		return fmt.Sprintf("%02d", now.Minute())
	case "dayOfWeek":
		return dayName(now.Weekday().String()[:3])
	}
	return nil
}

// dayName is the value of taskrouter.dayOfWeek. Unlike other strings it compares without
// regard to letter case: the documentation names the days "Mon".."Sun" and writes its own
// business-hours example with 'THU', meaning Thursday.
type dayName string

func walk(doc any, path []any) any {
	cur := doc
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[p]
		case int:
			a, ok := cur.([]any)
			if !ok || p >= len(a) {
				return nil
			}
			cur = a[p]
		}
	}
	return cur
}

func compare(op Op, l, r any) bool {
	if op != OpEq && op != OpNe && op != OpIn && op != OpNotIn && op != OpHas {
		l, r = plainDay(l), plainDay(r)
	}
	switch op {
	case OpEq:
		return equal(l, r)
	case OpNe:
		return !equal(l, r)
	case OpLt, OpLe, OpGt, OpGe:
		c, ok := order(l, r)
		if !ok {
			return false
		}
		switch op {
		case OpLt:
			return c < 0
		case OpLe:
			return c <= 0
		case OpGt:
			return c > 0
		}
		return c >= 0
	case OpHas:
		a, ok := l.([]any)
		return ok && member(r, a)
	case OpIn:
		return in(l, r)
	case OpNotIn:
		return !in(l, r)
	case OpContains:
		sub, ok := r.(string)
		if !ok {
			return false
		}
		switch l := l.(type) {
		case string:
			return strings.Contains(l, sub)
		case []any:
			for _, e := range l {
				if s, ok := e.(string); ok && strings.Contains(s, sub) {
					return true
				}
			}
		}
	}
	return false
}

// in: a scalar is IN an array holding it (or equal to a scalar right side); an array is IN
// when any of its elements is.
func in(l, r any) bool {
	if la, ok := l.([]any); ok {
		for _, e := range la {
			if in(e, r) {
				return true
			}
		}
		return false
	}
	if l == nil {
		return false
	}
	if ra, ok := r.([]any); ok {
		return member(l, ra)
	}
	return equal(l, r)
}

func member(v any, a []any) bool {
	for _, e := range a {
		if equal(v, e) {
			return true
		}
	}
	return false
}

// equal compares scalars of one type exactly (strings are case-sensitive); a number and a
// string holding a number compare as numbers (taskrouter.currentHour is "HH" and the
// documentation compares it with 8). Null equals nothing, arrays and objects nothing.
func equal(l, r any) bool {
	if d, ok := l.(dayName); ok {
		return strings.EqualFold(string(d), asString(r))
	}
	if d, ok := r.(dayName); ok {
		return strings.EqualFold(string(d), asString(l))
	}
	switch l := l.(type) {
	case string:
		switch r := r.(type) {
		case string:
			return l == r
		case float64:
			f, ok := number(l)
			return ok && f == r
		}
	case float64:
		switch r := r.(type) {
		case float64:
			return l == r
		case string:
			f, ok := number(r)
			return ok && f == l
		}
	case bool:
		r, ok := r.(bool)
		return ok && l == r
	}
	return false
}

// order compares two scalars: numbers (and numeric strings against numbers) by value,
// strings by bytes. Anything else has no order.
func order(l, r any) (int, bool) {
	lf, lnum := l.(float64)
	rf, rnum := r.(float64)
	ls, lstr := l.(string)
	rs, rstr := r.(string)
	switch {
	case lnum && rstr:
		rf, rnum = number(rs)
	case lstr && rnum:
		lf, lnum = number(ls)
	case lstr && rstr:
		return strings.Compare(ls, rs), true
	}
	if !lnum || !rnum {
		return 0, false
	}
	switch {
	case lf < rf:
		return -1, true
	case lf > rf:
		return 1, true
	}
	return 0, true
}

func number(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64) // mutation:ignore: ParseFloat reads every bit size but 32 as 64 (63 or 65 is the same call)
	return f, err == nil
}

// plainDay turns a dayName into the plain string that ordering and CONTAINS compare.
func plainDay(v any) any {
	if d, ok := v.(dayName); ok {
		return string(d)
	}
	return v
}

// asString is v as a string for a day comparison; anything but a string or a day is "",
// which no day name equals.
func asString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case dayName:
		return string(v)
	}
	return ""
}
