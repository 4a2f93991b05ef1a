package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
)

// Request bodies and queries reach a prepare function only after checkRequest (http.go)
// validated them against the operation's schema in api/openapi.json: types, required and
// unknown members, lengths, counts, ranges, enums and patterns. A prepare function therefore
// decodes the body straight into a typed struct (the create reads it from the schema check's
// tree instead, createTaskBody.fromTree) and checks by hand only what no schema can
// state: rules across members (skillThresholds naming a tag of the same task, a schedule
// ending before it starts) and rules on state (a task's status, a worker's break).

const idPattern = "^[A-Za-z0-9_.-]+$"

// decodeBody decodes a body the schema has accepted into v; an empty body leaves v as it
// is. Integer members are read into float64 fields, because the schema's "integer" also
// admits 1e3 and 1.0, which encoding/json would refuse for an int.
func decodeBody(body []byte, v any) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		// The schema accepted this body, so a failure here is a Go type in this package
		// that disagrees with api/openapi.json: the server's mistake, not the caller's.
		return errorf(http.StatusInternalServerError, CodeInternalError, "the mock server could not read a body its schema accepts: %v", err)
	}
	return nil
}

// sent reports whether the body has a top-level member of that name, not null, from the
// tree the schema check parsed (checkRequest): no second parse of the body.
func (r *request) sent(member string) bool {
	if m, ok := r.decoded.(map[string]any); ok {
		return m[member] != nil
	}
	var all map[string]json.RawMessage
	_ = json.Unmarshal(r.body, &all) // a request that skipped checkRequest
	return len(all[member]) > 0 && !isNull(all[member])
}

// checkID holds an id in a path or query to the Id schema (URL-safe, 1 to 128 characters);
// path parameters are matched by the router, not by the body validator.
func checkID(path, s string) *apiError {
	if s == "" || len(s) > 128 {
		return validationf("%s must NOT have more than 128 characters", path)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return validationf("%s must match pattern \"%s\"", path, idPattern)
		}
	}
	return nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// compact is how stored opaque members are kept and echoed: as sent, without whitespace.
func compact(v json.RawMessage) json.RawMessage {
	if !spaced(v) {
		// Nothing to elide: json.Compact would give the same bytes (it escapes nothing),
		// and an invalid text is kept as sent either way.
		return append(json.RawMessage(nil), v...)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return append(json.RawMessage(nil), v...)
	}
	return b.Bytes()
}

// spaced reports whether v holds a JSON whitespace character outside its strings.
func spaced(v []byte) bool {
	inString, escaped := false, false
	for _, c := range v {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return true
		}
	}
	return false
}

func containsString(items []string, s string) bool { return slices.Contains(items, s) }

// eachMember calls fn with every top-level member of a JSON object the schema has accepted:
// its name (the body's own bytes, so no string is made per member) and its value's text
// exactly as sent (no surrounding whitespace), the bytes json.RawMessage would hold. It reports false, having stopped, when the text is not a plain
// object or a name holds an escape (the caller then decodes with encoding/json), or when fn
// returns false.
func eachMember(body []byte, fn func(name, raw []byte) bool) bool {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return skipSpace(body, i+1) == len(body)
	}
	for i < len(body) {
		if body[i] != '"' {
			return false
		}
		end := i + 1
		for end < len(body) && body[end] != '"' {
			if body[end] == '\\' {
				return false
			}
			end++
		}
		if end >= len(body) {
			return false
		}
		name := body[i+1 : end]
		i = skipSpace(body, end+1)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		start := skipSpace(body, i+1)
		stop, ok := skipValue(body, start)
		if !ok || !fn(name, body[start:stop]) {
			return false
		}
		i = skipSpace(body, stop)
		if i >= len(body) {
			return false
		}
		switch body[i] {
		case ',':
			i = skipSpace(body, i+1)
		case '}':
			return skipSpace(body, i+1) == len(body)
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns where the value starting at i ends, in text already known to be JSON.
func skipValue(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return 0, false
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
			i++
		case ',':
			if depth == 0 {
				return i, true
			}
			i++
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
		if depth == 0 && i > 0 && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i, true
		}
	}
	if depth == 0 {
		return i, true
	}
	return 0, false
}
