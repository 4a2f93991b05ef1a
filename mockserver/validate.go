package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// The validator speaks the platform's schema-error dialect (JSON-schema style, as ajv words
// it): "body must have required property 'tags'", "body/tags must NOT have more than 32
// items". Every message names the field so a user can fix the request without reading the
// server's source.

const idPattern = "^[A-Za-z0-9_.-]+$"

// object is one JSON object of a request body, split into its members so that each member
// is checked by exact, case-sensitive name (encoding/json alone would accept "TAGS").
type object struct {
	path string
	raw  map[string]json.RawMessage
}

// parseBody decodes the whole body as one JSON object and rejects members not in allowed.
func parseBody(body []byte, allowed ...string) (*object, *apiError) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && !json.Valid(trimmed) {
			return nil, validationf("body is not valid JSON")
		}
		return nil, validationf("body must be object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		// Only the failure path pays for a second scan, to say which mistake it was.
		if !json.Valid(trimmed) {
			return nil, validationf("body is not valid JSON")
		}
		return nil, validationf("body must be object")
	}
	return checkMembers(&object{path: "body", raw: m}, allowed)
}

func toObject(path string, raw json.RawMessage, allowed []string) (*object, *apiError) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, validationf("%s must be object", path)
	}
	return checkMembers(&object{path: path, raw: m}, allowed)
}

// checkMembers rejects members not in allowed; a nil allowed accepts any member.
func checkMembers(o *object, allowed []string) (*object, *apiError) {
	if allowed == nil {
		return o, nil
	}
	var extra []string
	for k := range o.raw {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra) // stable messages, independent of map order
		return nil, validationf("%s must NOT have additional property '%s'", o.path, extra[0])
	}
	return o, nil
}

func (o *object) at(name string) string { return o.path + "/" + name }

// get returns the member, treating JSON null like absence.
func (o *object) get(name string) (json.RawMessage, bool) {
	v, ok := o.raw[name]
	if !ok || isNull(v) {
		return nil, false
	}
	return v, true
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func (o *object) require(name string) *apiError {
	if _, ok := o.get(name); !ok {
		return validationf("%s must have required property '%s'", o.path, name)
	}
	return nil
}

func checkLen(path, s string, minLen, maxLen int) *apiError {
	n := utf8.RuneCountInString(s)
	if n < minLen {
		return validationf("%s must NOT have fewer than %d characters", path, minLen)
	}
	if maxLen > 0 && n > maxLen {
		return validationf("%s must NOT have more than %d characters", path, maxLen)
	}
	return nil
}

func decodeString(path string, raw json.RawMessage) (string, *apiError) {
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", validationf("%s must be string", path)
	}
	return s, nil
}

// str reads an optional string member of minLen..maxLen characters.
func (o *object) str(name string, minLen, maxLen int) (string, bool, *apiError) {
	raw, ok := o.get(name)
	if !ok {
		return "", false, nil
	}
	s, err := decodeString(o.at(name), raw)
	if err != nil {
		return "", false, err
	}
	return s, true, checkLen(o.at(name), s, minLen, maxLen)
}

// id reads an optional id member (URL-safe, at most 128 characters).
func (o *object) id(name string) (string, bool, *apiError) {
	s, ok, err := o.str(name, 1, 128)
	if err != nil || !ok {
		return s, ok, err
	}
	return s, true, checkID(o.at(name), s)
}

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

func (o *object) number(name string) (float64, bool, *apiError) {
	raw, ok := o.get(name)
	if !ok {
		return 0, false, nil
	}
	var f float64
	if !isNumberToken(raw) || json.Unmarshal(raw, &f) != nil {
		return 0, false, validationf("%s must be number", o.at(name))
	}
	return f, true, nil
}

func isNumberToken(raw json.RawMessage) bool {
	c := raw[0]
	return c == '-' || (c >= '0' && c <= '9')
}

// integer reads an optional integer member within [lo, hi].
func (o *object) integer(name string, lo, hi int64) (int64, bool, *apiError) {
	f, ok, err := o.number(name)
	if err != nil || !ok {
		return 0, ok, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, validationf("%s must be integer", o.at(name))
	}
	n := int64(f)
	if n < lo {
		return 0, false, validationf("%s must be >= %d", o.at(name), lo)
	}
	if n > hi {
		return 0, false, validationf("%s must be <= %d", o.at(name), hi)
	}
	return n, true, nil
}

func (o *object) boolean(name string) (bool, bool, *apiError) {
	raw, ok := o.get(name)
	if !ok {
		return false, false, nil
	}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, validationf("%s must be boolean", o.at(name))
}

// strings reads an optional array of strings with item count and item length bounds.
func (o *object) strings(name string, minItems, maxItems, minLen, maxLen int, ids bool) ([]string, bool, *apiError) {
	raw, ok := o.get(name)
	if !ok {
		return nil, false, nil
	}
	if out, ok := fastStrings(raw, minItems, maxItems, minLen, maxLen, ids); ok {
		return out, true, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, false, validationf("%s must be array", o.at(name))
	}
	if len(items) < minItems {
		return nil, false, validationf("%s must NOT have fewer than %d items", o.at(name), minItems)
	}
	if len(items) > maxItems {
		return nil, false, validationf("%s must NOT have more than %d items", o.at(name), maxItems)
	}
	out := make([]string, len(items))
	for i, it := range items {
		p := fmt.Sprintf("%s/%d", o.at(name), i)
		s, err := decodeString(p, it)
		if err == nil && ids {
			err = checkID(p, s)
		} else if err == nil {
			err = checkLen(p, s, minLen, maxLen)
		}
		if err != nil {
			return nil, false, err
		}
		out[i] = s
	}
	return out, true, nil
}

// fastStrings decodes a string array in one pass and reports whether every rule holds. It
// is the path of almost every request (the body already passed the schema); on any doubt
// (a null item reads as "", a rule broken) it answers false and strings walks the items
// one by one to name the member that breaks it.
func fastStrings(raw json.RawMessage, minItems, maxItems, minLen, maxLen int, ids bool) ([]string, bool) {
	var out []string
	if raw[0] != '[' || json.Unmarshal(raw, &out) != nil || len(out) < minItems || len(out) > maxItems {
		return nil, false
	}
	for _, s := range out {
		if s == "" {
			return nil, false
		}
		if ids {
			if checkID("", s) != nil {
				return nil, false
			}
		} else if checkLen("", s, minLen, maxLen) != nil {
			return nil, false
		}
	}
	if out == nil {
		out = []string{}
	}
	return out, true
}

// numberMap reads an optional object of numbers >= min, at most maxProps members, keys of
// 1..maxKey characters.
func (o *object) numberMap(name string, maxProps, maxKey int, lo float64) (map[string]float64, bool, *apiError) {
	raw, ok := o.get(name)
	if !ok {
		return nil, false, nil
	}
	sub, err := toObject(o.at(name), raw, nil)
	if err != nil {
		return nil, false, err
	}
	if len(sub.raw) > maxProps {
		return nil, false, validationf("%s must NOT have more than %d properties", o.at(name), maxProps)
	}
	out := make(map[string]float64, len(sub.raw))
	keys := make([]string, 0, len(sub.raw))
	for k := range sub.raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if n := utf8.RuneCountInString(k); n < 1 || n > maxKey {
			return nil, false, validationf("%s property name '%s' must have 1 to %d characters", o.at(name), k, maxKey)
		}
		raw := sub.raw[k]
		var f float64
		if !isNumberToken(raw) || json.Unmarshal(raw, &f) != nil {
			return nil, false, validationf("%s/%s must be number", o.at(name), k)
		}
		if f < lo {
			return nil, false, validationf("%s/%s must be >= %v", o.at(name), k, lo)
		}
		out[k] = f
	}
	return out, true, nil
}

// anyObject reads a member that must be a JSON object (or null when nullable) and returns
// it as raw JSON to be stored and echoed. present reports whether the member was sent at
// all, null included.
func (o *object) anyObject(name string, nullable bool) (raw json.RawMessage, present bool, err *apiError) {
	v, ok := o.raw[name]
	if !ok {
		return nil, false, nil
	}
	if isNull(v) {
		if !nullable {
			return nil, false, validationf("%s must be object", o.at(name))
		}
		return json.RawMessage("null"), true, nil
	}
	if bytes.TrimSpace(v)[0] != '{' {
		if nullable {
			return nil, false, validationf("%s must be object,null", o.at(name))
		}
		return nil, false, validationf("%s must be object", o.at(name))
	}
	return compact(v), true, nil
}

// anyValue reads a member of any JSON type, stored and echoed untouched.
func (o *object) anyValue(name string) (json.RawMessage, bool) {
	v, ok := o.raw[name]
	if !ok {
		return nil, false
	}
	return compact(v), true
}

func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return append(json.RawMessage(nil), v...)
	}
	return b.Bytes()
}

func enumf(path string, allowed ...string) *apiError {
	return validationf("%s must be equal to one of the allowed values: %s", path, strings.Join(allowed, ", "))
}
