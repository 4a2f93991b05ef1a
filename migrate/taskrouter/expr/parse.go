package expr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SyntaxError is a parse failure: where and what the parser expected there. Found quotes at
// most 40 bytes of what was there (with an ellipsis when cut), so an error about a megabyte of
// input stays short.
type SyntaxError struct {
	// Pos is the byte offset into the expression.
	Pos int
	// Line and Column (both from 1; Column counts bytes from the start of the line) are Pos
	// for a reader: expressions in workflow JSON often span several lines.
	Line, Column int
	Expected     string
	Found        string
}

// Error names the column, and the line too when it is not the first.
func (e *SyntaxError) Error() string {
	if e.Line > 1 {
		return fmt.Sprintf("expression: line %d, column %d: expected %s, found %s", e.Line, e.Column, e.Expected, e.Found)
	}
	return fmt.Sprintf("expression: column %d: expected %s, found %s", e.Pos+1, e.Expected, e.Found)
}

// locate fills in Line and Column from Pos.
func (e *SyntaxError) locate(src string) *SyntaxError {
	before := src[:min(max(e.Pos, 0), len(src))]
	e.Line = 1 + strings.Count(before, "\n")
	e.Column = len(before) - strings.LastIndexByte(before, '\n')
	return e
}

// maxDepth bounds nesting so a hostile expression cannot exhaust the stack.
const maxDepth = 200

// Parse reads one TaskRouter expression:
//
//	expr     = and { OR and }
//	and      = unary { AND unary }
//	unary    = NOT unary | "(" expr ")" | operand op operand
//	op       = == | = | != | < | <= | > | >= | HAS | -> | CONTAINS | IN | NOT IN
//	operand  = string | number | true | false | key | "[" operand { "," operand } "]"
//	key      = name { "." name | "[" integer "]" }
//
// Keywords are case-insensitive. A key starting with task., worker. or taskrouter. reads
// that document; any other key reads the document the expression is about.
func Parse(src string) (Node, error) {
	p := &parser{lx: lexer{src: src}}
	p.advance()
	n, err := p.or(0)
	if err == nil {
		if t := p.peek(); t.kind != tokEOF {
			err = p.errAt(t, "AND, OR or the end of the expression")
		}
	}
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.locate(src)
		}
		return nil, err
	}
	return n, nil
}

// parser reads tokens from the lexer one at a time: tok is the next one. A lexical error
// stops the lexer; it is returned when the parser reaches it, as the error of whatever the
// parser expected there.
type parser struct {
	lx     lexer
	tok    token
	lexErr error
}

// tokError stands for the place a lexical error was found: it matches nothing the parser
// expects, so the parser reports it at once.
const tokError tokKind = -1

func (p *parser) advance() {
	if p.lexErr != nil {
		return
	}
	t, err := p.lx.next()
	if err != nil {
		p.lexErr = err
		t = token{kind: tokError, pos: p.lx.i}
	}
	p.tok = t
}

func (p *parser) peek() token { return p.tok }
func (p *parser) next() token { t := p.tok; p.advance(); return t }

func (p *parser) errAt(t token, expected string) error {
	if t.kind == tokError {
		return p.lexErr
	}
	return &SyntaxError{Pos: t.pos, Expected: expected, Found: t.describe()}
}

// source quotes the expression from offset from up to the token t, for an error message
// naming what came before: at most excerptMax bytes of it.
func (p *parser) source(from int, t token) string {
	to := t.pos
	if to < from || to > len(p.lx.src) {
		to = len(p.lx.src)
	}
	return excerpt(strings.TrimSpace(p.lx.src[from:to]))
}

// keyword reports whether the next token is the keyword kw (case-insensitive).
func (p *parser) keyword(kw string) bool {
	t := p.peek()
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) or(depth int) (Node, error) {
	l, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("OR") {
		t := p.next()
		r, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		l = &Or{L: l, R: r, At: t.pos}
	}
	return l, nil
}

func (p *parser) and(depth int) (Node, error) {
	l, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("AND") {
		t := p.next()
		r, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l = &And{L: l, R: r, At: t.pos}
	}
	return l, nil
}

func (p *parser) unary(depth int) (Node, error) {
	if depth > maxDepth {
		return nil, p.errAt(p.peek(), fmt.Sprintf("at most %d levels of nesting", maxDepth))
	}
	t := p.peek()
	if p.keyword("NOT") {
		p.next()
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Not{X: x, At: t.pos}, nil
	}
	if t.kind == tokLParen {
		p.next()
		x, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if c := p.peek(); c.kind != tokRParen {
			return nil, p.errAt(c, `")" to close the "(" at column `+strconv.Itoa(t.pos+1))
		}
		p.next()
		return x, nil
	}
	return p.comparison(depth)
}

func (p *parser) comparison(depth int) (Node, error) {
	l, err := p.operand(depth)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	var op Op
	switch {
	case t.kind == tokOp:
		switch t.text {
		case "==", "=":
			op = OpEq
		case "->":
			op = OpHas
		default:
			op = Op(t.text)
		}
		p.next()
	case p.keyword("HAS"):
		op = OpHas
		p.next()
	case p.keyword("CONTAINS"):
		op = OpContains
		p.next()
	case p.keyword("IN"):
		op = OpIn
		p.next()
	case p.keyword("NOT"):
		p.next()
		if !p.keyword("IN") {
			return nil, p.errAt(p.peek(), `IN after NOT (as in "x NOT IN [..]")`)
		}
		p.next()
		op = OpNotIn
	default:
		return nil, p.errAt(t, "a comparison operator (==, !=, <, <=, >, >=, HAS, CONTAINS, IN, NOT IN) after "+p.source(l.Pos(), t))
	}
	r, err := p.operand(depth)
	if err != nil {
		return nil, err
	}
	return &Compare{Op: op, L: l, R: r, At: l.Pos()}, nil
}

func (p *parser) operand(depth int) (Operand, error) {
	t := p.peek()
	switch t.kind {
	case tokString:
		p.next()
		return &Const{Value: t.text, At: t.pos}, nil
	case tokNumber:
		p.next()
		f, err := strconv.ParseFloat(t.text, 64) // mutation:ignore: ParseFloat reads every bit size but 32 as 64 (63 or 65 is the same call)
		if err != nil {
			return nil, p.errAt(t, "a number")
		}
		return &Const{Value: f, At: t.pos}, nil
	case tokLBrack:
		if depth > maxDepth {
			return nil, p.errAt(t, fmt.Sprintf("at most %d levels of nesting", maxDepth))
		}
		p.next()
		l := &List{At: t.pos}
		if p.peek().kind == tokRBrack {
			p.next()
			return l, nil
		}
		for {
			it, err := p.operand(depth + 1)
			if err != nil {
				return nil, err
			}
			l.Items = append(l.Items, it)
			switch c := p.next(); c.kind {
			case tokComma:
				continue
			case tokRBrack:
				return l, nil
			default:
				return nil, p.errAt(c, `"," or "]" in the list starting at column `+strconv.Itoa(t.pos+1))
			}
		}
	case tokIdent:
		switch keyword(t.text) {
		case "":
			return p.key()
		case "TRUE", "FALSE":
			p.next()
			return &Const{Value: keyword(t.text) == "TRUE", At: t.pos}, nil
		}
		// Any other keyword (AND, OR, NOT, IN, HAS, CONTAINS) cannot start a key.
		return nil, p.errAt(t, "a key or a constant")
	}
	return nil, p.errAt(t, "a key or a constant (string, number, true, false, [list])")
}

func (p *parser) key() (Operand, error) {
	first := p.next()
	k := &Key{At: first.pos, Path: []any{first.text}}
	for {
		switch t := p.peek(); t.kind {
		case tokDot:
			p.next()
			n := p.next()
			if n.kind != tokIdent {
				return nil, p.errAt(n, "a member name after "+p.source(k.At, n))
			}
			k.Path = append(k.Path, n.text)
		case tokLBrack:
			p.next()
			n := p.next()
			idx, err := strconv.Atoi(n.text)
			if n.kind != tokNumber || err != nil || idx < 0 {
				return nil, p.errAt(n, "an array index (0, 1, ...) after "+p.source(k.At, n))
			}
			if c := p.next(); c.kind != tokRBrack {
				return nil, p.errAt(c, `"]" after the index`)
			}
			k.Path = append(k.Path, idx)
		default:
			if len(k.Path) > 1 {
				switch s, _ := k.Path[0].(string); s {
				case "task", "worker", "taskrouter":
					k.Scope, k.Path = Scope(s), k.Path[1:]
				}
			}
			return k, nil
		}
	}
}
