package contract

import (
	"slices"
	"strconv"
)

// UndeclaredMembers lists the members of a success answer that its response schema does not
// define, as JSON paths ("/tasks/0/unmatched"). An object schema that lists properties and
// says nothing about others is closed here, whatever JSON Schema allows: an answer member the
// document does not name is one a client cannot know about. An object schema without
// properties (free-form data such as meta or a result) and one that states
// additionalProperties (true, or a schema for a map's values) are open as they say.
func (c *Contract) UndeclaredMembers(opID string, status int, body []byte) []string {
	return c.undeclaredMembers(opID, status, body, nil)
}

// undeclaredMembers is UndeclaredMembers; parsed, when not nil, is the body already parsed.
func (c *Contract) undeclaredMembers(opID string, status int, body []byte, parsed any) []string {
	op, ok := c.ops[opID]
	if !ok || status >= 400 {
		return nil
	}
	code := strconv.Itoa(status)
	sch, declared := op.responseSchemas[code]
	if !declared {
		sch = op.responseSchemas[code[:1]+"XX"]
	}
	if sch == nil {
		return nil
	}
	v := parsed
	if v == nil {
		var err error
		if v, err = DecodeJSON(body); err != nil {
			return nil // ValidateResponse reports it
		}
	}
	var out []string
	c.undeclared(sch, v, "", &out, 0)
	slices.Sort(out)
	return slices.Compact(out)
}

func (c *Contract) undeclared(sch map[string]any, v any, at string, out *[]string, depth int) {
	sch, _ = resolve(c.root, sch, nil)
	if sch == nil || depth > 32 {
		return
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		alts, _ := sch[k].([]any)
		if len(alts) == 0 {
			continue
		}
		if k == "allOf" {
			c.undeclared(mergeAll(c.root, alts), v, at, out, depth+1)
			return
		}
		// The first alternative whose type fits the value decides.
		for _, a := range alts {
			am, _ := resolve(c.root, a, nil)
			if fits(am, v) {
				c.undeclared(am, v, at, out, depth+1)
				return
			}
		}
		return
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := sch["properties"].(map[string]any)
		addl, hasAddl := sch["additionalProperties"]
		for name, member := range x {
			path := at + "/" + escapeToken(name)
			if ps, ok := props[name].(map[string]any); ok {
				c.undeclared(ps, member, path, out, depth+1)
				continue
			}
			switch a := addl.(type) {
			case map[string]any:
				c.undeclared(a, member, path, out, depth+1)
			case bool:
				if !a {
					*out = append(*out, path)
				}
			default:
				if !hasAddl && len(props) > 0 {
					*out = append(*out, path)
				}
			}
		}
	case []any:
		if items, ok := sch["items"].(map[string]any); ok {
			for i, e := range x {
				c.undeclared(items, e, at+"/"+strconv.Itoa(i), out, depth+1)
			}
		}
	}
}

// fits reports whether v is of a type the schema allows (no type: any).
func fits(sch map[string]any, v any) bool {
	var types []string
	switch t := sch["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	}
	if len(types) == 0 {
		return sch["properties"] == nil || isObject(v)
	}
	for _, t := range types {
		switch t {
		case "null":
			if v == nil {
				return true
			}
		case "object":
			if isObject(v) {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		default: // number, integer
			if v != nil && !isObject(v) {
				if _, ok := v.([]any); !ok {
					return true
				}
			}
		}
	}
	return false
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

// mergeAll joins the properties of allOf's parts; the result is open if any part is.
func mergeAll(root map[string]any, parts []any) map[string]any {
	props := map[string]any{}
	out := map[string]any{"type": "object", "properties": props}
	for _, p := range parts {
		pm, _ := resolve(root, p, nil)
		ps, _ := pm["properties"].(map[string]any)
		for k, v := range ps {
			props[k] = v
		}
		if a, ok := pm["additionalProperties"]; ok && a != false {
			out["additionalProperties"] = a
		}
	}
	return out
}
