package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// schemaError names the member the schema refused. Of several faults it names an unknown
// member first (the likeliest sign of a foreign document), a missing one last.
func schemaError(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return stateErrorf("", "%v", err)
	}
	var leaves []*StateError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, schemaLeaf(e))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	rank := func(e *StateError) int {
		switch {
		case strings.HasPrefix(e.Reason, "is not a member"):
			return 0
		case e.Reason == "is required":
			return 2
		}
		return 1
	}
	slices.SortStableFunc(leaves, func(a, b *StateError) int {
		if c := rank(a) - rank(b); c != 0 {
			return c
		}
		return strings.Compare(a.Pointer, b.Pointer)
	})
	return leaves[0]
}

func schemaLeaf(e *jsonschema.ValidationError) *StateError {
	p := statePointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		return stateErrorf(p+"/"+escapePointer(k.Properties[0]), "is not a member of a version %d state", StateVersion)
	case *kind.Required:
		return stateErrorf(p+"/"+escapePointer(k.Missing[0]), "is required")
	case *kind.Type:
		return stateErrorf(p, "must be %s", strings.Join(k.Want, " or "))
	case *kind.Const:
		return stateErrorf(p, "must be %v", k.Want)
	case *kind.Enum:
		return stateErrorf(p, "must be one of %v", k.Want)
	case *kind.Pattern:
		return stateErrorf(p, "must match %q", k.Want)
	case *kind.Format:
		return stateErrorf(p, "must be a %s", k.Want)
	case *kind.Minimum, *kind.Maximum:
		return stateErrorf(p, "is out of range")
	}
	return stateErrorf(p, "is invalid")
}

func statePointer(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("/" + escapePointer(p))
	}
	return b.String()
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func toGeneric(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	_ = d.Decode(&out)
	return out
}

// firstDifference walks two JSON values and returns the pointer of the first place they
// differ, with what the document has there and what the real state has; "" when they are
// equal. Times are equal when they name the same instant, numbers when they have the same
// value.
func firstDifference(at string, real, doc any) (p, docHas, realHas string) {
	switch d := doc.(type) {
	case map[string]any:
		r, ok := real.(map[string]any)
		if !ok {
			return at, "an object", describeJSON(real)
		}
		for _, k := range sortedKeys(r) {
			if _, ok := d[k]; !ok {
				return at + "/" + escapePointer(k), "nothing", describeJSON(r[k])
			}
		}
		for _, k := range sortedKeys(d) {
			rv, ok := r[k]
			if !ok {
				return at + "/" + escapePointer(k), describeJSON(d[k]), "nothing"
			}
			if p, dh, rh := firstDifference(at+"/"+escapePointer(k), rv, d[k]); p != "" {
				return p, dh, rh
			}
		}
		return "", "", ""
	case []any:
		r, ok := real.([]any)
		if !ok {
			return at, "a list", describeJSON(real)
		}
		for i := range min(len(r), len(d)) {
			if p, dh, rh := firstDifference(at+"/"+strconv.Itoa(i), r[i], d[i]); p != "" {
				return p, dh, rh
			}
		}
		if len(r) != len(d) {
			return at, fmt.Sprintf("%d entries", len(d)), fmt.Sprintf("%d", len(r))
		}
		return "", "", ""
	case json.Number:
		if r, ok := real.(json.Number); ok {
			rf, err1 := r.Float64()
			df, err2 := d.Float64()
			if err1 == nil && err2 == nil && rf == df {
				return "", "", ""
			}
		}
	case string:
		if r, ok := real.(string); ok {
			if r == d {
				return "", "", ""
			}
			rt, err1 := time.Parse(time.RFC3339Nano, r)
			dt, err2 := time.Parse(time.RFC3339Nano, d)
			if err1 == nil && err2 == nil && rt.Equal(dt) {
				return "", "", ""
			}
		}
	default:
		if real == doc {
			return "", "", ""
		}
	}
	return at, describeJSON(doc), describeJSON(real)
}

func describeJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
