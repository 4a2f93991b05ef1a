package taskrouting

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// minEcho is the shortest piece of a secret that redaction removes when a server echoes the
// secret cut short: enough to be of use to a reader of the log. A secret shorter than this
// (a 4-digit PIN) is removed only whole.
const minEcho = 6

const redactedMark = "[redacted]"

// redactSecrets removes every echo of the secrets from text: the secret as is, as JSON or Go
// would escape it inside a string (and each character \u-escaped), in any letter case, and
// any piece of it from its first character on that is at least minEcho long (a server that
// truncates what it quotes). Errors built from a server's answer pass through here, so a
// server echoing the API key, a token or a PIN in any of these forms does not put it into
// err.Error() or %#v.
func redactSecrets(text string, secrets []string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		head := []rune(s)
		head = head[:min(len(head), minEcho)]
		// Longest spelling first, so a plain match never leaves escape residue around it.
		for _, spell := range []func(string) string{allEscaped, goEscaped, jsonEscaped, plain} {
			text = redactPrefixes(text, spell(s), len(spell(string(head))))
		}
	}
	return text
}

func plain(s string) string { return s }

// jsonEscaped is s as encoding/json writes it inside a string.
func jsonEscaped(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	return string(b[1 : len(b)-1])
}

// goEscaped is s as %q writes it inside the quotes.
func goEscaped(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// allEscaped is s with every character written as a \u escape (a surrogate pair beyond the
// BMP), as some JSON encoders do.
func allEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			b.WriteString(fmt.Sprintf(`\u%04x\u%04x`, r1, r2))
			continue
		}
		b.WriteString(fmt.Sprintf(`\u%04x`, r))
	}
	return b.String()
}

// redactPrefixes replaces, ignoring ASCII letter case, every run of text that spells a prefix
// of form at least least bytes long, extended as far as it keeps following form.
func redactPrefixes(text, form string, least int) string {
	if least <= 0 || least > len(form) || len(text) < least {
		return text
	}
	lowText, lowForm := asciiLower(text), asciiLower(form)
	head := lowForm[:least]
	var out strings.Builder
	i := 0
	for {
		j := strings.Index(lowText[i:], head)
		if j < 0 {
			break
		}
		start := i + j
		end := start + least
		for k := least; k < len(lowForm) && end < len(lowText) && lowText[end] == lowForm[k]; k++ {
			end++
		}
		out.WriteString(text[i:start])
		out.WriteString(redactedMark)
		i = end
	}
	if i == 0 {
		return text
	}
	out.WriteString(text[i:])
	return out.String()
}

// asciiLower lowers A-Z only, so byte offsets in the result are those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
