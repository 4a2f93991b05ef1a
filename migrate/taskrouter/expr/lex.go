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

// describe names a token for an error message: what was found.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	case tokNumber:
		return "number " + t.text
	case tokIdent:
		return fmt.Sprintf("%q", t.text)
	default:
		return fmt.Sprintf("%q", t.text)
	}
}

// lex splits an expression into tokens. Keywords are identifiers here; the parser knows them
// (case-insensitively, as the documentation writes both "IN" and "in").
func lex(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			out = append(out, token{tokLParen, "(", i})
			i++
		case c == ')':
			out = append(out, token{tokRParen, ")", i})
			i++
		case c == '[':
			out = append(out, token{tokLBrack, "[", i})
			i++
		case c == ']':
			out = append(out, token{tokRBrack, "]", i})
			i++
		case c == ',':
			out = append(out, token{tokComma, ",", i})
			i++
		case c == '.' && !(i+1 < len(src) && isDigit(src[i+1]) && !prevIsKeyEnd(out)):
			out = append(out, token{tokDot, ".", i})
			i++
		case c == '"' || c == '\'':
			s, n, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			out = append(out, token{tokString, s, i})
			i += n
		case c == '=' || c == '!' || c == '<' || c == '>':
			op := string(c)
			if i+1 < len(src) && src[i+1] == '=' {
				op += "="
			}
			if op == "!" {
				return nil, &SyntaxError{Pos: i, Expected: "an operator (!= needs its =)", Found: `"!"`}
			}
			out = append(out, token{tokOp, op, i})
			i += len(op)
		case c == '-' && i+1 < len(src) && src[i+1] == '>':
			out = append(out, token{tokOp, "->", i})
			i += 2
		case isDigit(c) || c == '.' || (c == '-' && i+1 < len(src) && (isDigit(src[i+1]) || src[i+1] == '.')):
			j := i + 1
			for j < len(src) && (isDigit(src[j]) || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
				((src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E'))) {
				j++
			}
			out = append(out, token{tokNumber, src[i:j], i})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			if j < len(src) && src[j] == '-' && !(j+1 < len(src) && src[j+1] == '>') {
				// The documentation: hyphens are not supported in expressions.
				return nil, &SyntaxError{Pos: j, Expected: "a key without hyphens (TaskRouter expressions do not support them)", Found: `"-"`}
			}
			out = append(out, token{tokIdent, src[i:j], i})
			i = j
		default:
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, &SyntaxError{Pos: i, Expected: "a key, a constant, an operator or a parenthesis", Found: fmt.Sprintf("%q", r)}
		}
	}
	out = append(out, token{tokEOF, "", len(src)})
	return out, nil
}

// prevIsKeyEnd reports whether the token before a '.' ends a key (so ".5" after "a" is a
// path step, not a number).
func prevIsKeyEnd(out []token) bool {
	if len(out) == 0 {
		return false
	}
	k := out[len(out)-1].kind
	return k == tokIdent || k == tokRBrack
}

// lexString reads a single- or double-quoted string starting at src[i]; a backslash escapes
// the next character. It returns the text and the bytes consumed.
func lexString(src string, i int) (string, int, error) {
	quote := src[i]
	var b strings.Builder
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if j+1 >= len(src) {
				return "", 0, &SyntaxError{Pos: i, Expected: fmt.Sprintf("a closing %c", quote), Found: "end of expression"}
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

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }
