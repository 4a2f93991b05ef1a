package expr

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameTree reports whether a and b have the same shape and values, positions aside (a printed
// form puts nodes at other offsets). It is written out rather than cmp.Diff, whose cost
// grows with the depth of the path on trees thousands of nodes deep.
func sameTree(a, b Node) bool {
	switch a := a.(type) {
	case *Or:
		b, ok := b.(*Or)
		return ok && sameTree(a.L, b.L) && sameTree(a.R, b.R)
	case *And:
		b, ok := b.(*And)
		return ok && sameTree(a.L, b.L) && sameTree(a.R, b.R)
	case *Not:
		b, ok := b.(*Not)
		return ok && sameTree(a.X, b.X)
	case *Compare:
		b, ok := b.(*Compare)
		return ok && a.Op == b.Op && sameOperand(a.L, b.L) && sameOperand(a.R, b.R)
	}
	return false
}

func sameOperand(a, b Operand) bool {
	switch a := a.(type) {
	case *Const:
		b, ok := b.(*Const)
		return ok && a.Value == b.Value
	case *Key:
		b, ok := b.(*Key)
		return ok && a.Scope == b.Scope && cmp.Equal(a.Path, b.Path)
	case *List:
		b, ok := b.(*List)
		if !ok || len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !sameOperand(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// dump writes a tree fully bracketed, for a failure message.
func dump(n Node) string {
	switch n := n.(type) {
	case *Or:
		return "Or(" + dump(n.L) + ", " + dump(n.R) + ")"
	case *And:
		return "And(" + dump(n.L) + ", " + dump(n.R) + ")"
	case *Not:
		return "Not(" + dump(n.X) + ")"
	case *Compare:
		return fmt.Sprintf("Compare(%s %s %s)", n.L, n.Op, n.R)
	}
	return fmt.Sprintf("%#v", n)
}

// roundTrip parses src, prints the tree, parses the print and checks that both trees are the
// same and that printing again gives the same text.
func roundTrip(t *testing.T, src string) string {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%s): %v", excerptForTest(src), err)
	}
	printed := n.String()
	again, err := Parse(printed)
	if err != nil {
		t.Fatalf("the print of %s does not parse: %v\nprinted: %s", excerptForTest(src), err, excerptForTest(printed))
	}
	if !sameTree(n, again) {
		t.Fatalf("parse, print, parse of %s changed the tree:\nfirst:  %s\nsecond: %s", excerptForTest(src),
			excerptForTest(dump(n)), excerptForTest(dump(again)))
	}
	if p2 := again.String(); p2 != printed {
		t.Fatalf("printing is not stable: %s then %s", excerptForTest(printed), excerptForTest(p2))
	}
	return printed
}

func excerptForTest(s string) string {
	if len(s) > 300 {
		return fmt.Sprintf("%q... (%d bytes)", s[:300], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// TestStringPrintsOnlyNeededParentheses pins the printed form: chains flat, a parenthesis
// only where the grouping differs from what precedence and left association give.
func TestStringPrintsOnlyNeededParentheses(t *testing.T) {
	tests := []struct{ src, want string }{
		{`a == 1 AND b == 2 AND c == 3`, `a == 1 AND b == 2 AND c == 3`},
		{`((a == 1 AND b == 2) AND c == 3)`, `a == 1 AND b == 2 AND c == 3`},
		{`a == 1 AND (b == 2 AND c == 3)`, `a == 1 AND (b == 2 AND c == 3)`},
		{`a == 1 OR (b == 2 OR c == 3)`, `a == 1 OR (b == 2 OR c == 3)`},
		{`a == 1 OR b == 2 AND c == 3`, `a == 1 OR b == 2 AND c == 3`},
		{`(a == 1 OR b == 2) AND c == 3`, `(a == 1 OR b == 2) AND c == 3`},
		{`c == 3 AND (a == 1 OR b == 2)`, `c == 3 AND (a == 1 OR b == 2)`},
		{`(a == 1 AND b == 2) OR c == 3`, `a == 1 AND b == 2 OR c == 3`},
		{`NOT (a == 1 AND b == 2)`, `NOT (a == 1 AND b == 2)`},
		{`NOT (a == 1 OR b == 2)`, `NOT (a == 1 OR b == 2)`},
		{`NOT (a == 1)`, `NOT a == 1`},
		{`not not a = 1`, `NOT NOT a == 1`},
		{`(((a == 1)))`, `a == 1`},
		{`a NOT IN [1, 'x', [true]]`, `a NOT IN [1, "x", [true]]`},
		{`task.x[0].y -> 'a"b\\c'`, `task.x[0].y HAS "a\"b\\c"`},
		{`worker.sid != -0.5e1`, `worker.sid != -5`},
		{`taskrouter.currentTime >= 0800`, `taskrouter.currentTime >= 800`},
		{`a CONTAINS 'x' and b in []`, `a CONTAINS "x" AND b IN []`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			if got := roundTrip(t, tt.src); got != tt.want {
				t.Errorf("String() = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestPrintedFormsParseAtAnyLength: long chains and nesting up to the limit print as text
// that parses again to the same tree.
func TestPrintedFormsParseAtAnyLength(t *testing.T) {
	chain := func(n int, word string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("k%d == %d", i, i)
		}
		return strings.Join(parts, " "+word+" ")
	}
	// Right-leaning alternation needs every parenthesis of the source: depth maxDepth.
	var alt strings.Builder
	for i := 0; i < maxDepth; i++ {
		fmt.Fprintf(&alt, "k%d == 1 %s (", i, []string{"AND", "OR"}[i%2])
	}
	alt.WriteString("z == 1" + strings.Repeat(")", maxDepth))
	tests := map[string]string{
		"201 ANDs":                    chain(202, "AND"),
		"5000 ORs":                    chain(5001, "OR"),
		"ANDs inside ORs":             chain(300, "AND") + " OR " + chain(300, "AND"),
		"chain in maxDepth parens":    strings.Repeat("(", maxDepth) + chain(300, "AND") + strings.Repeat(")", maxDepth),
		"maxDepth NOTs":               strings.Repeat("NOT ", maxDepth) + "a == 1",
		"alternation maxDepth deep":   alt.String(),
		"lists maxDepth deep":         "a IN " + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		"NOT of parens, right-nested": strings.Repeat("NOT (a == 1 AND ", maxDepth/2) + "b == 1" + strings.Repeat(")", maxDepth/2),
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) { roundTrip(t, src) })
	}
}

// TestParsePrintParseGenerated: for expressions generated over the whole grammar (a seeded
// generator), parse, print, parse gives the same tree.
func TestParsePrintParseGenerated(t *testing.T) {
	g := newExprGen(1)
	for i := 0; i < 2000; i++ {
		src := g.expression()
		roundTrip(t, src)
	}
}

// exprGen writes random TaskRouter expressions over the whole grammar: every operator and
// its spellings, keywords in any case, both quotes and escapes, negative, fractional and
// exponent numbers, scoped keys with members and indexes, nested lists, parentheses and NOT,
// with and without whitespace where the lexer allows both.
type exprGen struct {
	r     *rand.Rand
	depth int
}

func newExprGen(seed uint64) *exprGen {
	return &exprGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *exprGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

// ws is optional whitespace, where the lexer allows none.
func (g *exprGen) ws() string { return g.pick("", " ", "  ", "\t", "\n ") }

// sp is required whitespace, between words.
func (g *exprGen) sp() string { return g.pick(" ", "  ", "\t", "\r\n") }

// word spells a keyword in a random case.
func (g *exprGen) word(w string) string {
	switch g.r.IntN(3) {
	case 0:
		return strings.ToLower(w)
	case 1:
		return w
	}
	b := []byte(w)
	for i := range b {
		if g.r.IntN(2) == 0 {
			b[i] |= 0x20
		}
	}
	return string(b)
}

func (g *exprGen) expression() string {
	g.depth = 0
	return g.or()
}

func (g *exprGen) or() string {
	s := g.and()
	for g.r.IntN(3) == 0 {
		s += g.sp() + g.word("OR") + g.sp() + g.and()
	}
	return s
}

func (g *exprGen) and() string {
	s := g.unary()
	for g.r.IntN(3) == 0 {
		s += g.sp() + g.word("AND") + g.sp() + g.unary()
	}
	return s
}

func (g *exprGen) unary() string {
	if g.depth < 6 {
		switch g.r.IntN(6) {
		case 0:
			g.depth++
			defer func() { g.depth-- }()
			return g.word("NOT") + g.sp() + g.unary()
		case 1, 2:
			g.depth++
			defer func() { g.depth-- }()
			return "(" + g.ws() + g.or() + g.ws() + ")"
		}
	}
	return g.comparison()
}

func (g *exprGen) comparison() string {
	l := g.operand()
	switch g.r.IntN(5) {
	case 0, 1:
		// A symbol needs no space around it.
		return l + g.ws() + g.pick("==", "=", "!=", "<", "<=", ">", ">=", "->") + g.ws() + g.operand()
	case 2:
		return l + g.sp() + g.word(g.pick("HAS", "CONTAINS", "IN")) + g.sp() + g.operand()
	case 3:
		return l + g.sp() + g.word("NOT") + g.sp() + g.word("IN") + g.sp() + g.list()
	}
	return l + g.sp() + g.word("IN") + g.ws() + g.list()
}

func (g *exprGen) operand() string {
	switch g.r.IntN(9) {
	case 0, 1:
		return g.str()
	case 2, 3:
		return g.number()
	case 4:
		return g.word(g.pick("true", "false"))
	case 5:
		if g.depth < 8 {
			return g.list()
		}
	}
	return g.key()
}

func (g *exprGen) list() string {
	g.depth++
	defer func() { g.depth-- }()
	n := g.r.IntN(4)
	if g.depth > 8 {
		n = 0
	}
	items := make([]string, n)
	for i := range items {
		items[i] = g.operand()
	}
	return "[" + g.ws() + strings.Join(items, g.ws()+","+g.ws()) + g.ws() + "]"
}

func (g *exprGen) str() string {
	q := g.pick(`"`, `'`)
	var b strings.Builder
	b.WriteString(q)
	for n := g.r.IntN(8); n > 0; n-- {
		c := g.pick("a", "Z", " ", "é", "\\\\", "\\"+q, "\\x", "(", ")", "AND", ",", "]", "\t", "-", "\xff", `"`, `'`)
		if c == q {
			c = "\\" + q
		}
		b.WriteString(c)
	}
	b.WriteString(q)
	return b.String()
}

func (g *exprGen) number() string {
	sign := g.pick("", "", "-")
	switch g.r.IntN(6) {
	case 0:
		return sign + fmt.Sprint(g.r.IntN(100000))
	case 1:
		return sign + fmt.Sprintf("%d.%d", g.r.IntN(100), g.r.IntN(1000))
	case 2:
		return sign + fmt.Sprintf(".%d", g.r.IntN(100))
	case 3:
		return sign + fmt.Sprintf("%de%s%d", 1+g.r.IntN(9), g.pick("", "+", "-"), g.r.IntN(300))
	case 4:
		return sign + fmt.Sprintf("0%d", g.r.IntN(1000))
	}
	return sign + fmt.Sprintf("%.3fE%d", g.r.Float64()*1000, g.r.IntN(20))
}

func (g *exprGen) key() string {
	var b strings.Builder
	b.WriteString(g.pick("", "", "task.", "worker.", "taskrouter.", "task", "worker"))
	if s := b.String(); s == "" || strings.HasSuffix(s, ".") {
		b.WriteString(g.pick("skills", "languages", "level", "a", "b_2", "$id", "sid", "currentTime", "dayOfWeek", "trueish", "Inside", "x9"))
	}
	for n := g.r.IntN(4); n > 0; n-- {
		if g.r.IntN(2) == 0 {
			b.WriteString("." + g.pick("array", "attr", "and", "OR", "true", "in", "y"))
		} else {
			fmt.Fprintf(&b, "[%d]", g.r.IntN(12))
		}
	}
	return b.String()
}
