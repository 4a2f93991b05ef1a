package contract

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastSchema is a request body's schema compiled to a walk over the decoded tree that
// allocates nothing. It only ever answers "valid" when the general validator
// (jsonschema) would accept the same value: anything it cannot decide exactly (an
// integer written as 1.0, a number on a bound, a uniqueItems array of non-strings) makes
// it answer "not sure", and the general validator then decides and words the problems.
// A schema with any keyword outside the few it knows gets no fastSchema at all
// (compileFast returns nil), so a keyword added to the document later is never skipped.
type fastSchema struct {
	types fastTypes // 0: any type

	// objects
	props     map[string]*fastSchema
	required  []string
	closed    bool        // additionalProperties: false
	addl      *fastSchema // additionalProperties: a schema
	maxProps  int         // -1: none
	minProps  int
	checkObjs bool // any object keyword present

	// arrays
	items    *fastSchema
	minItems int
	maxItems int // -1: none
	unique   bool

	// strings
	minLen  int
	maxLen  int // -1: none
	pattern *regexp.Regexp
	enum    []string // nil: no enum; only enums of strings compile

	// numbers: bounds exactly representable as float64 (see within)
	min, max       float64
	hasMin, hasMax bool
	exclMin        bool
	exclMax        bool

	ref *fastSchema // a $ref without sibling assertions: validated through the target
}

type fastTypes uint8

const (
	tNull fastTypes = 1 << iota
	tBool
	tObject
	tArray
	tString
	tNumber
	tInteger
)

// fastAnnotations are the keywords that assert nothing: a schema may carry them and still
// compile. Names starting with "x-" are extensions and assert nothing either.
var fastAnnotations = map[string]bool{
	"description": true, "title": true, "examples": true, "example": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true,
}

// fastCompiler compiles the schemas of one document; refs memoizes $ref targets (a
// recursive reference compiles once and points at itself).
type fastCompiler struct {
	root map[string]any
	refs map[string]*fastSchema
}

// compileFast compiles a schema of the document, or returns nil when any part of it uses
// a keyword the fast walk does not implement exactly.
func compileFast(root map[string]any, schema any) *fastSchema {
	fc := &fastCompiler{root: root, refs: map[string]*fastSchema{}}
	s, ok := fc.compile(schema, 0)
	if !ok {
		return nil
	}
	return s
}

func (fc *fastCompiler) compile(v any, depth int) (*fastSchema, bool) {
	if depth > 64 {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false // boolean schemas and anything odd: the general validator
	}
	s := &fastSchema{maxProps: -1, maxItems: -1, maxLen: -1}
	if ref, ok := m["$ref"].(string); ok {
		for k := range m {
			if k != "$ref" && !fastAnnotations[k] && !strings.HasPrefix(k, "x-") {
				return nil, false
			}
		}
		if !strings.HasPrefix(ref, "#/") {
			return nil, false
		}
		if t, ok := fc.refs[ref]; ok {
			s.ref = t
			return s, true
		}
		t := &fastSchema{}
		fc.refs[ref] = t
		c, ok := fc.compile(lookup(fc.root, refTokens(ref)), depth+1)
		if !ok {
			return nil, false
		}
		*t = *c
		s.ref = t
		return s, true
	}
	for k, kv := range m {
		if fastAnnotations[k] || strings.HasPrefix(k, "x-") {
			continue
		}
		ok := true
		switch k {
		case "type":
			s.types, ok = fastTypeSet(kv)
		case "properties":
			props, isMap := kv.(map[string]any)
			ok = isMap
			s.props = make(map[string]*fastSchema, len(props))
			for name, ps := range props {
				c, cok := fc.compile(ps, depth+1)
				if !cok {
					return nil, false
				}
				s.props[name] = c
			}
			s.checkObjs = true
		case "required":
			list, isList := kv.([]any)
			ok = isList
			for _, x := range list {
				name, isStr := x.(string)
				if !isStr {
					return nil, false
				}
				s.required = append(s.required, name)
			}
			s.checkObjs = true
		case "additionalProperties":
			switch a := kv.(type) {
			case bool:
				s.closed = !a
			default:
				s.addl, ok = fc.compile(a, depth+1)
			}
			s.checkObjs = true
		case "maxProperties":
			s.maxProps, ok = fastCount(kv)
			s.checkObjs = true
		case "minProperties":
			s.minProps, ok = fastCount(kv)
			s.checkObjs = true
		case "items":
			s.items, ok = fc.compile(kv, depth+1)
		case "minItems":
			s.minItems, ok = fastCount(kv)
		case "maxItems":
			s.maxItems, ok = fastCount(kv)
		case "uniqueItems":
			s.unique, ok = kv.(bool)
		case "minLength":
			s.minLen, ok = fastCount(kv)
		case "maxLength":
			s.maxLen, ok = fastCount(kv)
		case "pattern":
			p, isStr := kv.(string)
			if !isStr {
				return nil, false
			}
			re, err := regexp.Compile(p) // the general validator's engine (Go's regexp)
			if err != nil {
				return nil, false
			}
			s.pattern = re
		case "enum":
			list, isList := kv.([]any)
			ok = isList
			s.enum = make([]string, 0, len(list))
			for _, x := range list {
				str, isStr := x.(string)
				if !isStr {
					return nil, false
				}
				s.enum = append(s.enum, str)
			}
		case "minimum", "exclusiveMinimum":
			s.min, ok = fastBound(kv)
			s.hasMin, s.exclMin = true, k == "exclusiveMinimum"
			if _, both := m["minimum"]; both && k == "exclusiveMinimum" {
				return nil, false
			}
		case "maximum", "exclusiveMaximum":
			s.max, ok = fastBound(kv)
			s.hasMax, s.exclMax = true, k == "exclusiveMaximum"
			if _, both := m["maximum"]; both && k == "exclusiveMaximum" {
				return nil, false
			}
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
	}
	return s, true
}

func fastTypeSet(v any) (fastTypes, bool) {
	one := func(name string) (fastTypes, bool) {
		switch name {
		case "null":
			return tNull, true
		case "boolean":
			return tBool, true
		case "object":
			return tObject, true
		case "array":
			return tArray, true
		case "string":
			return tString, true
		case "number":
			return tNumber, true
		case "integer":
			return tInteger, true
		}
		return 0, false
	}
	switch t := v.(type) {
	case string:
		return one(t)
	case []any:
		var set fastTypes
		for _, x := range t {
			name, ok := x.(string)
			if !ok {
				return 0, false
			}
			b, ok := one(name)
			if !ok {
				return 0, false
			}
			set |= b
		}
		return set, set != 0
	}
	return 0, false
}

// fastCount reads a non-negative whole count (maxLength, minItems, ...).
func fastCount(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 32)
	return int(i), err == nil && i >= 0
}

// fastBound reads a numeric bound, refused unless float64 holds it exactly: within then
// compares floats, and rounding a value to float64 never crosses an exact bound.
func fastBound(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return 0, false
	}
	f, exact := r.Float64()
	return f, exact && !math.IsInf(f, 0)
}

// valid reports whether v certainly passes the schema; false means "not sure".
func (s *fastSchema) valid(v any) bool {
	if s.ref != nil {
		return s.ref.valid(v)
	}
	if s.enum != nil {
		// Only enums of strings compile; any other value is not in one.
		x, ok := v.(string)
		return ok && (s.types == 0 || s.types&tString != 0) && s.validString(x)
	}
	switch x := v.(type) {
	case nil:
		return s.types == 0 || s.types&tNull != 0
	case bool:
		return s.types == 0 || s.types&tBool != 0
	case string:
		return (s.types == 0 || s.types&tString != 0) && s.validString(x)
	case json.Number:
		return s.validNumber(x)
	case map[string]any:
		return (s.types == 0 || s.types&tObject != 0) && s.validObject(x)
	case []any:
		return (s.types == 0 || s.types&tArray != 0) && s.validArray(x)
	}
	return false // other Go types: the general validator decides
}

func (s *fastSchema) validString(x string) bool {
	if s.minLen > 0 || s.maxLen >= 0 {
		n := utf8.RuneCountInString(x) // code points, as the general validator counts
		if n < s.minLen || (s.maxLen >= 0 && n > s.maxLen) {
			return false
		}
	}
	if s.pattern != nil && !s.pattern.MatchString(x) {
		return false
	}
	if s.enum != nil {
		for _, e := range s.enum {
			if e == x {
				return true
			}
		}
		return false
	}
	return true
}

func (s *fastSchema) validNumber(x json.Number) bool {
	if s.types != 0 && s.types&tNumber == 0 {
		// Only "integer" can still take it: decided here for plain digits alone (1.0
		// and 1e3 are integers to the general validator too, which decides them).
		if s.types&tInteger == 0 || strings.ContainsAny(string(x), ".eE") {
			return false
		}
	}
	if !s.hasMin && !s.hasMax {
		return true
	}
	f, err := strconv.ParseFloat(string(x), 64)
	if err != nil {
		return false
	}
	// With an exact bound b, round(v) > b implies v > b and round(v) < b implies v < b; a
	// value that rounds onto the bound is left to the general validator.
	if s.hasMin && !(f > s.min) {
		return false
	}
	if s.hasMax && !(f < s.max) {
		return false
	}
	return true
}

func (s *fastSchema) validObject(x map[string]any) bool {
	if !s.checkObjs {
		return true
	}
	if len(x) < s.minProps || (s.maxProps >= 0 && len(x) > s.maxProps) {
		return false
	}
	for _, name := range s.required {
		if _, ok := x[name]; !ok {
			return false
		}
	}
	for k, v := range x {
		if p, ok := s.props[k]; ok {
			if !p.valid(v) {
				return false
			}
			continue
		}
		if s.closed {
			return false
		}
		if s.addl != nil && !s.addl.valid(v) {
			return false
		}
	}
	return true
}

func (s *fastSchema) validArray(x []any) bool {
	if len(x) < s.minItems || (s.maxItems >= 0 && len(x) > s.maxItems) {
		return false
	}
	if s.items != nil {
		for _, v := range x {
			if !s.items.valid(v) {
				return false
			}
		}
	}
	if s.unique {
		if len(x) > 64 {
			return false // not worth a quadratic walk here
		}
		for i := range x {
			a, ok := x[i].(string)
			if !ok {
				return false
			}
			for j := range i {
				if x[j].(string) == a {
					return false
				}
			}
		}
	}
	return true
}
