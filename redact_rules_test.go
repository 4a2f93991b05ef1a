package taskrouting

import "testing"

// Rule: an escaped surrogate pair is read as one character only when its first half is a
// high surrogate (D800-DBFF) and its second a low one (DC00-DFFF), the ends of both ranges
// included; any other pair of escapes is two characters, so it is no echo of a secret's
// U+FFFD (the character utf16.DecodeRune gives for a pair that is not one).
func TestRedactSurrogatePairs(t *testing.T) {
	for _, tc := range []struct {
		name, secret, in, want string
	}{
		{"U+10000, both halves at their lowest", "pin\U00010000code", `x pin\ud800\udc00code y`, "x [redacted] y"},
		{"U+10FFFF, both halves at their highest", "pin\U0010FFFFcode", `x pin\udbff\udfffcode y`, "x [redacted] y"},
		{"U+1F400, the low half at its lowest", "pin\U0001F400code", `x pin\uD83D\uDC00code y`, "x [redacted] y"},
		{"U+FFFD escaped is an echo", "pin\uFFFDcode", `x pin\ufffdcode y`, "x [redacted] y"},
		{"a low half below its range", "pin\uFFFDcode", `x pin\ud83d\udbffcode y`, `x pin\ud83d\udbffcode y`},
		{"a low half above its range", "pin\uFFFDcode", `x pin\ud83d\ue000code y`, `x pin\ud83d\ue000code y`},
		{"a second half that is no hex", "pin\uFFFDcode", `x pin\ud83d\uzzzzcode y`, `x pin\ud83d\uzzzzcode y`},
		{"a first half below the high range", "pin\uFFFDcode", `x pin\ud7ff\udc00code y`, `x pin\ud7ff\udc00code y`},
		{"a first half that is a low surrogate", "pin\uFFFDcode", `x pin\udc00\udc00code y`, `x pin\udc00\udc00code y`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diff(t, "redacted", tc.want, redactSecrets(tc.in, []string{tc.secret}))
		})
	}
}

// Rule: a backslash and a letter that is no escape (such as \z) stand for no character, so
// they are no echo of a secret's byte that is not UTF-8 nor of its NUL; the escapes that do
// stand for those are.
func TestRedactUnknownEscapeIsNoCharacter(t *testing.T) {
	for _, tc := range []struct {
		name, secret, in, want string
	}{
		{"\\z for a byte that is not UTF-8", "ab\xffcdef", `x ab\zcdef y`, `x ab\zcdef y`},
		{"\\xff for that byte", "ab\xffcdef", `x ab\xffcdef y`, "x [redacted] y"},
		{"\\z for NUL", "ab\x00cdef", `x ab\zcdef y`, `x ab\zcdef y`},
		{"\\u0000 for NUL", "ab\x00cdef", `x ab\u0000cdef y`, "x [redacted] y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diff(t, "redacted", tc.want, redactSecrets(tc.in, []string{tc.secret}))
		})
	}
}
