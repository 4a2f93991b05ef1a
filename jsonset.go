package taskrouting

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// jsonSet is one WithJSONSet: where in the body, and what to put there.
type jsonSet struct {
	path  []string
	value any
}

// WithJSONSet sets the body member at path to value before the call is
// sent, for a member the params type lacks: one the platform added after
// this release, or one it accepts that this package does not model. path
// names members by dots, "meta.source" or "requiredSkills.0.weight" (a
// number indexes an array element that exists: from 0 to one less than
// the array's length; a set never appends); write `\.` for a dot inside a
// member's name. Objects missing on the way are created; a member already
// there, set by the params type or by an earlier WithJSONSet, is replaced,
// and a later set reaches inside a value an earlier one put in. value is
// encoded as JSON when the call is sent (a json.RawMessage as it is).
// Numbers keep their exact text, the body's and value's alike: they never
// pass through float64, so 9007199254740993 is sent as written.
//
// Call only. A set that cannot apply (an index past the end, a member
// inside a string or a number, a value that does not encode, a GET or a
// DELETE that sends no body) is a *ParamError for "WithJSONSet" and
// nothing is sent.
//
// The member still has to satisfy the operation's request schema: the
// platform, and the mock server, refuse what the contract does not allow.
func WithJSONSet(path string, value any) RequestOption {
	return func(o *config) error {
		if err := o.callOnly("WithJSONSet"); err != nil {
			return err
		}
		segs, ok := splitJSONPath(path)
		if !ok {
			return &ParamError{Param: "WithJSONSet", Problem: "path " + strconv.Quote(path) + " has an empty member name"}
		}
		o.jsonSet = append(o.jsonSet[:len(o.jsonSet):len(o.jsonSet)], jsonSet{path: segs, value: value})
		return nil
	}
}

// splitJSONPath splits at dots not escaped by a backslash.
func splitJSONPath(path string) ([]string, bool) {
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] == '\\' && i+1 < len(path) && path[i+1] == '.':
			cur.WriteByte('.')
			i++
		case path[i] == '.':
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(path[i])
		}
	}
	segs = append(segs, cur.String())
	for _, s := range segs {
		if s == "" {
			return nil, false
		}
	}
	return segs, true
}

// applyJSONSets returns body with the sets applied, in the order given.
// Numbers already in the body keep their exact text.
func applyJSONSets(method string, body []byte, sets []jsonSet) ([]byte, error) {
	var root any
	if body == nil {
		if method == "GET" || method == "DELETE" {
			return nil, &ParamError{Param: "WithJSONSet", Problem: "a " + method + " call sends no body"}
		}
		root = map[string]any{}
	} else {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&root); err != nil {
			return nil, err
		}
	}
	for _, s := range sets {
		value, err := jsonTree(s.value)
		if err != nil {
			return nil, &ParamError{Param: "WithJSONSet", Problem: "the value for " + strconv.Quote(strings.Join(s.path, ".")) + " does not encode as JSON: " + err.Error()}
		}
		if root, err = setMember(root, s.path, value); err != nil {
			return nil, err
		}
	}
	return json.Marshal(root)
}

// jsonTree turns value into the maps, slices and json.Numbers its JSON
// decodes to, so that a later set can reach inside it (a json.RawMessage,
// a struct or a typed map set earlier) and its numbers keep their text.
func jsonTree(value any) (any, error) {
	b, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// setMember puts value at path inside node and returns the node.
func setMember(node any, path []string, value any) (any, error) {
	if len(path) == 0 {
		return value, nil
	}
	switch n := node.(type) {
	case nil:
		child, err := setMember(nil, path[1:], value)
		return map[string]any{path[0]: child}, err
	case map[string]any:
		child, err := setMember(n[path[0]], path[1:], value)
		n[path[0]] = child
		return n, err
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(n) {
			return n, &ParamError{Param: "WithJSONSet", Problem: "member " + strconv.Quote(path[0]) + " is not an index of the array there"}
		}
		n[i], err = setMember(n[i], path[1:], value)
		return n, err
	}
	return node, &ParamError{Param: "WithJSONSet", Problem: "member " + strconv.Quote(path[0]) + " is inside a value that is neither object nor array"}
}
