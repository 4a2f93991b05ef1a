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
// number indexes an array element that exists); write `\.` for a dot
// inside a member's name. Objects missing on the way are created; a member
// already there, set by the params type or by an earlier WithJSONSet, is
// replaced. value is encoded as JSON (a json.RawMessage as it is). Call
// only; a call that sends no body (GET, DELETE) refuses it.
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
		var err error
		if root, err = setMember(root, s.path, s.value); err != nil {
			return nil, err
		}
	}
	return json.Marshal(root)
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
