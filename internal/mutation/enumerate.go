package mutation

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// Kind names one way of breaking a rule.
type Kind string

// The kinds of mutant. Each stands for a mistake a reviewer has seen slip through: a boundary
// read one off, a check dropped, a tie-break reversed, a constant off by one.
const (
	Boundary     Kind = "boundary"   // < <-> <=, > <-> >=
	Equality     Kind = "equality"   // == <-> !=
	SwapOperands Kind = "swap"       // a < b -> b < a (a reversed ordering or tie-break)
	Logical      Kind = "logical"    // && <-> ||
	NegateIf     Kind = "negate-if"  // if c -> if !(c)
	DropIf       Kind = "drop-if"    // an if without else whose body leaves (return, break, continue) never runs
	DropCall     Kind = "drop-call"  // a call statement never runs
	ConstPlus    Kind = "const+1"    // an integer literal one more
	ConstMinus   Kind = "const-1"    // an integer literal one less
	Arithmetic   Kind = "arithmetic" // + <-> -, * <-> /, % -> *
	IncDec       Kind = "incdec"     // x++ <-> x--
)

// Mutant is one change to one file: the bytes [Start, End) of the original source replaced by
// Repl. Byte-range edits keep every other byte, so line numbers of the mutated file are those
// of the original and a test failure points at the real line.
type Mutant struct {
	File  string `json:"file"` // as given to Enumerate
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Kind  Kind   `json:"kind"`
	Start int    `json:"-"`
	End   int    `json:"-"`
	Orig  string `json:"orig"`
	Repl  string `json:"repl"`
}

// ID names the mutant uniquely within its package: file:line:col/kind/replacement.
func (m Mutant) ID() string {
	return fmt.Sprintf("%s:%d:%d/%s/%s", m.File, m.Line, m.Col, m.Kind, oneLine(m.Repl))
}

// Apply returns src with the mutant's change made.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.Repl))
	out = append(out, src[:m.Start]...)
	out = append(out, m.Repl...)
	return append(out, src[m.End:]...)
}

// MutatedLine returns the line of src holding the mutant, after the change, trimmed; a change
// spanning lines is shown by its first line.
func (m Mutant) MutatedLine(src []byte) string {
	out := m.Apply(src)
	start := bytes.LastIndexByte(out[:m.Start], '\n') + 1
	end := bytes.IndexByte(out[m.Start:], '\n')
	if end < 0 {
		end = len(out)
	} else {
		end += m.Start
	}
	return strings.TrimSpace(string(out[start:end]))
}

// IgnoreComment marks code the run leaves alone: on a line of its own it covers the next line,
// after code it covers its own line, and in a function's doc comment the whole function. Use it
// for code whose breaking no test can see by design (logging, a cache that only saves time), and
// say why beside it.
const IgnoreComment = "mutation:ignore"

// Enumerate lists the mutants of one Go source file, in source order. A generated file has
// none.
func Enumerate(filename string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	e := &enumerator{fset: fset, file: fset.File(f.Pos()), src: src, name: filename}
	e.collectIgnores(f)
	e.collectIndexes(f)
	ast.Inspect(f, e.visit)
	sort.SliceStable(e.out, func(i, j int) bool {
		if e.out[i].Start != e.out[j].Start {
			return e.out[i].Start < e.out[j].Start
		}
		return e.out[i].End < e.out[j].End
	})
	return e.out, nil
}

type enumerator struct {
	fset        *token.FileSet
	file        *token.File
	src         []byte
	name        string
	ignoreLines map[int]bool
	ignoreSpans [][2]token.Pos
	indexes     map[*ast.BasicLit]bool // literals standing as an index or slice bound
	out         []Mutant
}

func (e *enumerator) collectIgnores(f *ast.File) {
	e.ignoreLines = map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if !strings.Contains(c.Text, IgnoreComment) {
				continue
			}
			line := e.file.Line(c.Pos())
			e.ignoreLines[line] = true
			if e.aloneOnLine(c.Pos()) {
				e.ignoreLines[e.file.Line(cg.End())+1] = true
			}
		}
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if ok && fd.Doc != nil && strings.Contains(fd.Doc.Text(), IgnoreComment) {
			e.ignoreSpans = append(e.ignoreSpans, [2]token.Pos{fd.Pos(), fd.End()})
		}
	}
}

// collectIndexes finds the literals used as an index or a slice bound: a constant 0 there read
// as -1 does not compile, so that mutant would only cost a build.
func (e *enumerator) collectIndexes(f *ast.File) {
	e.indexes = map[*ast.BasicLit]bool{}
	mark := func(x ast.Expr) {
		if lit, ok := x.(*ast.BasicLit); ok {
			e.indexes[lit] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			mark(n.Index)
		case *ast.SliceExpr:
			mark(n.Low)
			mark(n.High)
			mark(n.Max)
		}
		return true
	})
}

// aloneOnLine reports whether only blanks precede pos on its line.
func (e *enumerator) aloneOnLine(pos token.Pos) bool {
	off := e.file.Offset(pos)
	start := bytes.LastIndexByte(e.src[:off], '\n') + 1
	return len(bytes.TrimSpace(e.src[start:off])) == 0
}

func (e *enumerator) ignored(pos token.Pos) bool {
	if e.ignoreLines[e.file.Line(pos)] {
		return true
	}
	for _, s := range e.ignoreSpans {
		if pos >= s[0] && pos < s[1] {
			return true
		}
	}
	return false
}

func (e *enumerator) add(kind Kind, from, to token.Pos, repl string) {
	if e.ignored(from) {
		return
	}
	p := e.fset.Position(from)
	start, end := e.file.Offset(from), e.file.Offset(to)
	e.out = append(e.out, Mutant{
		File: e.name, Line: p.Line, Col: p.Column, Kind: kind,
		Start: start, End: end, Orig: string(e.src[start:end]), Repl: repl,
	})
}

func (e *enumerator) text(n ast.Node) string {
	return string(e.src[e.file.Offset(n.Pos()):e.file.Offset(n.End())])
}

var (
	boundaryOf = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}
	equalityOf = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL}
	logicalOf  = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}
	arithOf    = map[token.Token]token.Token{token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL}
)

// neverDropped are calls whose removal only hangs or deadlocks the tests (a missing Unlock or
// Done), or does not compile (a final panic): mutants that cost a timeout and teach nothing.
var neverDropped = map[string]bool{"Lock": true, "Unlock": true, "RLock": true, "RUnlock": true, "Done": true, "panic": true}

func (e *enumerator) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.GenDecl:
		// import paths and struct tags hold no integers; constant blocks do, and are mutated.
		return n.Tok != token.IMPORT
	case *ast.BinaryExpr:
		e.binary(n)
	case *ast.BasicLit:
		e.literal(n)
	case *ast.IfStmt:
		e.add(NegateIf, n.Cond.Pos(), n.Cond.End(), "!("+e.text(n.Cond)+")")
		if n.Else == nil && leaves(n.Body) {
			e.add(DropIf, n.Pos(), n.End(), "if false { "+e.text(n)+" }")
		}
	case *ast.ExprStmt:
		if call, ok := n.X.(*ast.CallExpr); ok && !neverDropped[calleeName(call)] {
			e.add(DropCall, n.Pos(), n.End(), "if false { "+e.text(n)+" }")
		}
	case *ast.IncDecStmt:
		other := "--"
		if n.Tok == token.DEC {
			other = "++"
		}
		e.add(IncDec, n.TokPos, n.TokPos+2, other)
	}
	return true
}

func (e *enumerator) binary(n *ast.BinaryExpr) {
	op := n.OpPos
	end := op + token.Pos(len(n.Op.String()))
	if t, ok := boundaryOf[n.Op]; ok {
		e.add(Boundary, op, end, t.String())
		e.add(SwapOperands, n.X.Pos(), n.Y.End(), e.text(n.Y)+" "+n.Op.String()+" "+e.text(n.X))
	}
	if t, ok := equalityOf[n.Op]; ok {
		e.add(Equality, op, end, t.String())
	}
	if t, ok := logicalOf[n.Op]; ok {
		e.add(Logical, op, end, t.String())
	}
	if t, ok := arithOf[n.Op]; ok && !(n.Op == token.ADD && isStringy(n)) {
		e.add(Arithmetic, op, end, t.String())
	}
}

func (e *enumerator) literal(n *ast.BasicLit) {
	if n.Kind != token.INT {
		return
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		return // beyond int64: leave it
	}
	e.add(ConstPlus, n.Pos(), n.End(), signed(v+1))
	if v > 0 || !e.indexes[n] {
		e.add(ConstMinus, n.Pos(), n.End(), signed(v-1))
	}
}

// signed writes v so it stands where a literal stood: a negative value in parentheses.
func signed(v int64) string {
	if v < 0 {
		return "(" + strconv.FormatInt(v, 10) + ")"
	}
	return strconv.FormatInt(v, 10)
}

// leaves reports whether a block ends by leaving: a return, break, continue or goto.
func leaves(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	}
	return false
}

// isStringy reports whether a + chain has a string literal in it, so that - would not compile.
// Without type information a concatenation of two string variables still yields a mutant; the
// run counts it as not viable.
func isStringy(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.BasicLit:
		return x.Kind == token.STRING || x.Kind == token.CHAR
	case *ast.ParenExpr:
		return isStringy(x.X)
	case *ast.BinaryExpr:
		return x.Op == token.ADD && (isStringy(x.X) || isStringy(x.Y))
	}
	return false
}

func calleeName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "..."
	}
	return s
}
