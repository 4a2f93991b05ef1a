package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of one lexical token.
type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokString
	tokNumber
	tokOp     // == = != < <= > >= ->
	tokLParen // (
	tokRParen // )
	tokLBrack // [
	tokRBrack // ]
	tokComma  // ,
	tokDot    // .
)

// token is one lexeme and where it starts (a byte offset into the expression).
type token struct {
	kind tokKind
	text string // identifiers and operators as written, strings unquoted, numbers as written
	pos  int
}

// describe names a token for an error message: what was found, at most excerptMax bytes of
// it.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokString:
		return fmt.Sprintf("string %q", excerpt(t.text))
	case tokNumber:
		return "number " + excerpt(t.text)
	default:
		return fmt.Sprintf("%q", excerpt(t.text))
	}
}

// excerptMax bounds how much of the source an error quotes: a token or an operand can be
// megabytes long.
const excerptMax = 40

// excerpt is s cut to at most excerptMax bytes (on a character boundary) with an ellipsis
// when cut.
func excerpt(s string) string {
	if len(s) <= excerptMax {
		return s
	}
	// Back up to the start of a character, at most the length of one: bytes that are not
	// UTF-8 have no start to find.
	cut := excerptMax
	for cut > excerptMax-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// lexer splits an expression into tokens on demand, one token ahead of the parser, so that
// a parse that fails early (the nesting limit, a missing operator) never reads the rest.
// Keywords are identifiers here; the parser knows them (case-insensitively, as the
// documentation writes both "IN" and "in").
type lexer struct {
	src string
	i   int
	// prev is the token before, for the one context-dependent rule: ".5" after a key is a
	// path step and a member, anywhere else a number.
	prev token
}

// next returns the next token; a lexical error comes back as a *SyntaxError.
func (lx *lexer) next() (token, error) {
	t, err := lx.scan()
	if err == nil {
		lx.prev = t
	}
	return t, err
}

func (lx *lexer) scan() (token, error) {
	src, i := lx.src, lx.i
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	lx.i = i
	if i >= len(src) {
		return token{tokEOF, "", len(src)}, nil
	}
	one := func(k tokKind) (token, error) {
		lx.i = i + 1
		return token{k, src[i : i+1], i}, nil
	}
	c := src[i]
	switch {
	case c == '(':
		return one(tokLParen)
	case c == ')':
		return one(tokRParen)
	case c == '[':
		return one(tokLBrack)
	case c == ']':
		return one(tokRBrack)
	case c == ',':
		return one(tokComma)
	case c == '.' && !(i+1 < len(src) && isDigit(src[i+1]) && !lx.prevEndsKey()):
		return one(tokDot)
	case c == '"' || c == '\'':
		s, n, err := lexString(src, i)
		if err != nil {
			return token{}, err
		}
		lx.i = i + n
		return token{tokString, s, i}, nil
	case c == '=' || c == '!' || c == '<' || c == '>':
		n := 1
		if i+1 < len(src) && src[i+1] == '=' {
			n = 2
		}
		if c == '!' && n == 1 {
			return token{}, &SyntaxError{Pos: i, Expected: "an operator (!= needs its =)", Found: `"!"`}
		}
		lx.i = i + n
		return token{tokOp, src[i : i+n], i}, nil
	case c == '-' && i+1 < len(src) && src[i+1] == '>':
		lx.i = i + 2
		return token{tokOp, "->", i}, nil
	case isDigit(c) || c == '.' || (c == '-' && i+1 < len(src) && (isDigit(src[i+1]) || src[i+1] == '.')):
		j := i + 1
		for j < len(src) && (isDigit(src[j]) || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
			((src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E'))) {
			j++
		}
		lx.i = j
		return token{tokNumber, src[i:j], i}, nil
	case isIdentStart(c):
		j := i + 1
		for j < len(src) && isIdentPart(src[j]) {
			j++
		}
		if j < len(src) && src[j] == '-' && !(j+1 < len(src) && src[j+1] == '>') {
			// The documentation: hyphens are not supported in expressions.
			return token{}, &SyntaxError{Pos: j, Expected: "a key without hyphens (TaskRouter expressions do not support them)", Found: `"-"`}
		}
		lx.i = j
		return token{tokIdent, src[i:j], i}, nil
	}
	r, _ := utf8.DecodeRuneInString(src[i:])
	return token{}, &SyntaxError{Pos: i, Expected: "a key, a constant, an operator or a parenthesis", Found: fmt.Sprintf("%q", r)}
}

// prevEndsKey reports whether the token before a '.' ends a key (so ".5" after "a" is a path
// step, not a number). A keyword (true and false too) ends no key: "a == 1 AND .5 < b" compares a number.
func (lx *lexer) prevEndsKey() bool {
	switch lx.prev.kind {
	case tokIdent:
		return keyword(lx.prev.text) == ""
	case tokRBrack:
		return true
	}
	return false
}

// lexString reads a single- or double-quoted string starting at src[i]; a backslash escapes
// the next character. It returns the text and the bytes consumed.
func lexString(src string, i int) (string, int, error) {
	quote := src[i]
	j := i + 1
	for j < len(src) && src[j] != quote && src[j] != '\\' {
		j++
	}
	if j < len(src) && src[j] == quote {
		// No escapes: the text is a slice of the source, no copy.
		return src[i+1 : j], j + 1 - i, nil
	}
	var b strings.Builder
	b.WriteString(src[i+1 : j])
	for ; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if j+1 >= len(src) {
				return "", 0, &SyntaxError{Pos: i, Expected: fmt.Sprintf("a closing %c", quote), Found: "end of expression"} // mutation:ignore: the count beside an error is never read
			}
			j++
			b.WriteByte(src[j])
		case quote:
			return b.String(), j + 1 - i, nil
		default:
			b.WriteByte(src[j])
		}
	}
	return "", 0, &SyntaxError{Pos: i, Expected: fmt.Sprintf("a closing %c for the string starting here", quote), Found: "end of expression"}
}

// keyword returns the upper-case keyword s spells (AND, OR, NOT, IN, HAS, CONTAINS, TRUE,
// FALSE), or "" when s is no keyword. It does not allocate: every key goes through it.
func keyword(s string) string {
	if len(s) > len("CONTAINS") {
		return ""
	}
	for _, kw := range keywords {
		if strings.EqualFold(s, kw) {
			return kw
		}
	}
	return ""
}

var keywords = []string{"AND", "OR", "NOT", "IN", "HAS", "CONTAINS", "TRUE", "FALSE"}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }
