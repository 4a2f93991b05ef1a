package taskrouting

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// minEcho is the shortest piece of a secret that redaction removes when a server echoes the
// secret cut short: enough to be of use to a reader of the log. A secret shorter than this
// (a 4-digit PIN) is removed only whole.
const minEcho = 6

const redactedMark = "[redacted]"

// redactSecrets removes every echo of the secrets from text. Errors built from a server's
// answer pass through here, so a server quoting the API key, a token or a PIN back does not
// put it into err.Error() or %#v, however its encoder wrote it. Each character of the
// secret is recognised on its own, so any mix of these spellings is removed:
//
//   - the character itself, or another letter case of it (Unicode simple case folding);
//   - a \u escape of it, hex digits in either case, as JSON encoders write <, > and & (Go),
//     every non-ASCII character (Python) or every character; a character beyond the BMP as
//     its escaped surrogate pair;
//   - a Go escape of it: \U and eight hex digits, \x and two, or a one-letter escape
//     (\" \\ \/ \n \t and the others of JSON and Go);
//   - an escape quoted again (its backslash doubled, as in JSON text inside a JSON string),
//     up to maxBackslashes backslashes.
//
// A byte of the secret that is not UTF-8 is recognised as itself, \xNN, or U+FFFD (a JSON
// decoder's replacement for it). A piece of the secret from its first character on, at least
// minEcho characters long, is removed too (a server that truncates what it quotes).
func redactSecrets(text string, secrets []string) string {
	for _, s := range secrets {
		if s != "" {
			text = redactEchoes(text, secretUnits(s))
		}
	}
	return text
}

// unit is one character of a secret: a rune, or a byte that is not UTF-8 (bad).
type unit struct {
	r   rune
	b   byte
	bad bool
}

func secretUnits(s string) []unit {
	units := make([]unit, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			units = append(units, unit{b: s[i], bad: true})
		} else {
			units = append(units, unit{r: r})
		}
		i += size
	}
	return units
}

// redactEchoes replaces each longest run of text that spells the secret, or a piece of it
// from its first unit on at least minEcho units long, with the mark.
func redactEchoes(text string, units []unit) string {
	need := min(len(units), minEcho)
	var out strings.Builder
	var cur, next []int // the offsets an echo may have reached; reused for every start
	last := 0
	for p := 0; p < len(text); {
		end := -1
		cur = append(cur[:0], p)
		for k, u := range units {
			next = next[:0]
			for _, q := range cur {
				next = spellings(next, text, q, u)
			}
			if len(next) == 0 {
				if k >= need {
					end = furthest(cur)
				}
				break
			}
			cur, next = next, cur
			if k == len(units)-1 {
				end = furthest(cur)
			}
		}
		if end < 0 {
			_, size := utf8.DecodeRuneInString(text[p:])
			p += size
			continue
		}
		out.WriteString(text[last:p])
		out.WriteString(redactedMark)
		p, last = end, end
	}
	if last == 0 {
		return text
	}
	out.WriteString(text[last:])
	return out.String()
}

func furthest(offsets []int) int {
	m := offsets[0]
	for _, o := range offsets[1:] {
		m = max(m, o)
	}
	return m
}

// spellings appends to ends every offset at which a spelling of u starting at text[q:] ends.
func spellings(ends []int, text string, q int, u unit) []int {
	if q >= len(text) {
		return ends
	}
	c, size := utf8.DecodeRuneInString(text[q:])
	switch {
	case u.bad && (text[q] == u.b || c == utf8.RuneError && size == 3):
		ends = appendOnce(ends, q+size)
	case !u.bad && !(c == utf8.RuneError && size == 1) && sameLetter(c, u.r):
		ends = appendOnce(ends, q+size)
	}
	if text[q] != '\\' {
		return ends
	}
	n := backslashes(text, q)
	if !u.bad && u.r == '\\' {
		// A backslash of the secret, as is or escaped once or more.
		for i := 1; i <= n; i++ {
			ends = appendOnce(ends, q+i)
		}
	}
	e := q + n // the escape's letter
	if e >= len(text) {
		return ends
	}
	switch text[e] {
	case 'u', 'U':
		if v, ok := hexAt(text, e+1, 4); ok {
			if end, r, ok := surrogatePair(text, e+5, v); ok {
				if !u.bad && sameLetter(r, u.r) {
					ends = appendOnce(ends, end)
				}
			} else if u.bad && v == utf8.RuneError || !u.bad && sameLetter(v, u.r) {
				ends = appendOnce(ends, e+5)
			}
		}
		if v, ok := hexAt(text, e+1, 8); ok && text[e] == 'U' && !u.bad && sameLetter(v, u.r) {
			ends = appendOnce(ends, e+9)
		}
	case 'x', 'X':
		if v, ok := hexAt(text, e+1, 2); ok && (u.bad && v == rune(u.b) || !u.bad && v == u.r) {
			ends = appendOnce(ends, e+3)
		}
	default:
		if r, ok := shortEscape(text[e]); ok && !u.bad && r == u.r {
			ends = appendOnce(ends, e+1)
		}
	}
	return ends
}

// surrogatePair reads the low half of an escaped surrogate pair whose high half hi has been
// read, at text[at:]: the offset after it and the character of the pair.
func surrogatePair(text string, at int, hi rune) (int, rune, bool) {
	if hi < 0xD800 || hi > 0xDBFF || at >= len(text) || text[at] != '\\' {
		return 0, 0, false // mutation:ignore: the caller reads the offset and character only when ok
	}
	e := at + backslashes(text, at)
	if e >= len(text) || text[e] != 'u' && text[e] != 'U' {
		return 0, 0, false // mutation:ignore: the caller reads the offset and character only when ok
	}
	lo, ok := hexAt(text, e+1, 4)
	if !ok || lo < 0xDC00 || lo > 0xDFFF {
		return 0, 0, false // mutation:ignore: the caller reads the offset and character only when ok
	}
	return e + 5, utf16.DecodeRune(hi, lo), true
}

// maxBackslashes bounds the backslashes read before an escape's letter: enough for an echo
// quoted four times over, and it keeps a server's answer full of backslashes from costing
// time that grows with the square of its length.
const maxBackslashes = 16

// backslashes counts the backslashes at text[q:], up to maxBackslashes.
func backslashes(text string, q int) int {
	n := 0
	for n < maxBackslashes && q+n < len(text) && text[q+n] == '\\' {
		n++
	}
	return n
}

// shortEscape is the character a one-letter escape of JSON or Go stands for; an encoder's
// output put in upper case keeps its meaning, so the letter's case is ignored.
func shortEscape(c byte) (rune, bool) {
	switch c {
	case '"', '\'', '/':
		return rune(c), true
	}
	switch c | 0x20 {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	}
	return 0, false // mutation:ignore: every caller reads the value only when ok
}

// hexAt reads n hex digits (either case) at text[at:].
func hexAt(text string, at, n int) (rune, bool) {
	if at+n > len(text) {
		return 0, false // mutation:ignore: every caller reads the value only when ok
	}
	v, err := strconv.ParseUint(text[at:at+n], 16, 32)
	return rune(v), err == nil
}

// sameLetter reports whether a and b are one character, ignoring letter case.
func sameLetter(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func appendOnce(ends []int, end int) []int {
	for _, e := range ends {
		if e == end {
			return ends
		}
	}
	return append(ends, end)
}
