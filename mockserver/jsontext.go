package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// checkJSONText refuses a request body whose strings (member names included) are not
// Unicode text: bytes that are not UTF-8, or a \u escape of a lone UTF-16 surrogate.
// encoding/json would quietly turn either into U+FFFD, so two different invalid tags would
// become one tag and match each other. JSON text must be UTF-8 (RFC 8259, section 8.1) and
// I-JSON forbids lone surrogates (RFC 7493, section 2.1); the answer names the member, in the
// schema validator's "body/..." form. It runs for every operation with a body, before the
// schema check, so no operation can store such a string.
func checkJSONText(body []byte) *apiError {
	if utf8.Valid(body) && !hasSurrogateEscape(body) {
		return nil // the common case: nothing to look at closely
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var path []pathStep
	prev := int64(0)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // not JSON at all: the schema check words that refusal
		}
		end := dec.InputOffset()
		raw := body[prev:end]
		prev = end
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				path = append(bump(path), pathStep{object: true, expectKey: true})
			case '[':
				path = append(bump(path), pathStep{index: -1})
			default:
				path = advance(path[:len(path)-1])
			}
		case string:
			isKey := len(path) > 0 && path[len(path)-1].object && path[len(path)-1].expectKey
			if isKey {
				path[len(path)-1].key = v
			} else {
				path = bump(path)
			}
			if i := bytes.IndexByte(raw, '"'); i >= 0 && !validJSONString(raw[i:]) {
				if isKey {
					return validationf("%s has a member name that is not valid Unicode text (UTF-8 without lone surrogates)", pointer(path[:len(path)-1]))
				}
				return validationf("%s must be valid Unicode text (UTF-8 without lone surrogates)", pointer(path))
			}
			if isKey {
				path[len(path)-1].expectKey = false
			} else {
				path = advance(path)
			}
		default:
			path = advance(bump(path))
		}
	}
}

// pathStep is one level of the member path while checkJSONText walks the body.
type pathStep struct {
	object    bool
	expectKey bool
	key       string
	index     int
}

// bump moves an array to its next element before a value is read.
func bump(path []pathStep) []pathStep {
	if n := len(path); n > 0 && !path[n-1].object {
		path[n-1].index++
	}
	return path
}

// advance ends a value: in an object the next token is a member name again. A container
// that just closed counts as a value of its parent.
func advance(path []pathStep) []pathStep {
	if n := len(path); n > 0 && path[n-1].object {
		path[n-1].expectKey = true
	}
	return path
}

func pointer(path []pathStep) string {
	var b strings.Builder
	b.WriteString("body")
	for _, p := range path {
		b.WriteByte('/')
		if p.object {
			b.WriteString(p.key)
		} else {
			b.WriteString(strconv.Itoa(max(p.index, 0)))
		}
	}
	return b.String()
}

// hasSurrogateEscape reports whether body may hold a \uD800-\uDFFF escape.
func hasSurrogateEscape(body []byte) bool {
	for i := bytes.Index(body, []byte(`\u`)); i >= 0; {
		if i+2 < len(body) && (body[i+2] == 'd' || body[i+2] == 'D') {
			return true
		}
		j := bytes.Index(body[i+2:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += 2 + j
	}
	return false
}

// validJSONString checks one quoted JSON string as sent (starting at its opening quote):
// UTF-8 bytes, and every surrogate escape part of a high-low pair.
func validJSONString(raw []byte) bool {
	end := len(raw)
	for i := 1; i < len(raw); i++ {
		if raw[i] == '\\' {
			i++
			continue
		}
		if raw[i] == '"' {
			end = i
			break
		}
	}
	s := raw[1:end]
	if !utf8.Valid(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 < len(s) && s[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(s, i+2)
		if !ok {
			return true // malformed escapes are the decoder's to refuse
		}
		i += 5
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00: // high: a low escape must follow
			lo, ok := hex4(s, i+3)
			if i+2 >= len(s) || s[i+1] != '\\' || s[i+2] != 'u' || !ok || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		case utf16.IsSurrogate(r): // a low surrogate alone
			return false
		}
	}
	return true
}

func hex4(s []byte, at int) (rune, bool) {
	if at < 0 || at+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[at:at+4]), 16, 32)
	return rune(v), err == nil
}
