package expr

import (
	"strconv"
	"strings"
)

// The printer writes a tree in one pass into one buffer, so printing is linear in the size of
// the tree. It writes only the parentheses the grouping needs: a chain of ANDs or ORs, which
// the parser builds leaning left, prints flat ("a AND b AND c"), and a parenthesis is written
// only where the source needed one too (an OR under an AND, a right operand of its own kind,
// an AND or OR under NOT). So the printed form of a tree that Parse returned never nests
// deeper than its source did, and parses again, within the nesting limit, to the same tree.

// Binding strength, loosest first: the least a node must bind to be written without
// parentheses where it appears.
const (
	precOr = iota
	precAnd
	precUnary
)

func nodeString(n Node) string {
	var b strings.Builder
	writeNode(&b, n, precOr)
	return b.String()
}

func operandString(o Operand) string {
	var b strings.Builder
	writeOperand(&b, o)
	return b.String()
}

// writeNode writes n where a node binding at least min may stand without parentheses.
func writeNode(b *strings.Builder, n Node, min int) {
	switch n := n.(type) {
	case *Or:
		writeChain(b, n, min)
	case *And:
		writeChain(b, n, min)
	case *Not:
		b.WriteString("NOT ")
		writeNode(b, n.X, precUnary)
	case *Compare:
		writeOperand(b, n.L)
		b.WriteByte(' ')
		b.WriteString(string(n.Op))
		b.WriteByte(' ')
		writeOperand(b, n.R)
	}
}

// writeChain writes a left-leaning chain of one operator (((a OR b) OR c) OR d) as
// "a OR b OR c OR d", walking the chain with a loop so a chain of any length needs no deep
// recursion.
func writeChain(b *strings.Builder, n Node, min int) {
	_, isAnd := n.(*And)
	prec, word := precOr, " OR "
	if isAnd {
		prec, word = precAnd, " AND "
	}
	var rights []Node
	for {
		l, r, ok := split(n, isAnd)
		if !ok {
			break
		}
		rights = append(rights, r)
		n = l
	}
	if min > prec {
		b.WriteByte('(')
	}
	// The leftmost operand may be anything that binds at least as tightly as the chain; a
	// right operand must bind more tightly, or the parser would lean it the other way.
	writeNode(b, n, prec)
	for i := len(rights) - 1; i >= 0; i-- {
		b.WriteString(word)
		writeNode(b, rights[i], prec+1)
	}
	if min > prec {
		b.WriteByte(')')
	}
}

// split returns the operands of n when n is an AND (and is true) or an OR (and is false).
func split(n Node, and bool) (l, r Node, ok bool) {
	switch c := n.(type) {
	case *Or:
		if !and {
			return c.L, c.R, true
		}
	case *And:
		if and {
			return c.L, c.R, true
		}
	}
	return nil, nil, false
}

func writeOperand(b *strings.Builder, o Operand) {
	switch o := o.(type) {
	case *Const:
		switch v := o.Value.(type) {
		case string:
			// The language's own quoting: a backslash escapes the next character.
			b.WriteByte('"')
			for i := 0; i < len(v); i++ {
				if v[i] == '"' || v[i] == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte(v[i])
			}
			b.WriteByte('"')
		case float64:
			var buf [32]byte // mutation:ignore: AppendFloat grows the slice when it must; the longest float64 it writes here is 24 bytes
			// mutation:ignore: every negative precision means the shortest form
			b.Write(strconv.AppendFloat(buf[:0], v, 'g', -1, 64))
		case bool:
			b.WriteString(strconv.FormatBool(v))
		default:
			b.WriteString("null")
		}
	case *Key:
		start := b.Len()
		if o.Scope != ScopeDefault {
			b.WriteString(string(o.Scope))
		}
		for _, p := range o.Path {
			switch p := p.(type) {
			case string:
				if b.Len() > start {
					b.WriteByte('.')
				}
				b.WriteString(p)
			case int:
				b.WriteByte('[')
				b.WriteString(strconv.Itoa(p))
				b.WriteByte(']')
			}
		}
	case *List:
		b.WriteByte('[')
		for i, it := range o.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeOperand(b, it)
		}
		b.WriteByte(']')
	}
}
