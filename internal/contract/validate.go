package contract

import (
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ValidationError lists what a value breaks, one problem a line, in the platform's words.
type ValidationError struct {
	Problems []string
}

// Error joins the problems the way the platform's validation_failed message does.
func (e *ValidationError) Error() string { return strings.Join(e.Problems, ", ") }

// UnknownOperationError is returned for an operation id the document does not have.
type UnknownOperationError struct{ ID string }

func (e *UnknownOperationError) Error() string { return "contract: unknown operation " + e.ID }

// ValidateRequest checks a request's query and JSON body (nil or empty: no body) against
// the operation's schemas. Query values are read as the schema's type, as the platform's
// router does before validating.
func (c *Contract) ValidateRequest(opID string, query url.Values, body []byte) error {
	var v any
	if len(body) > 0 {
		var err error
		if v, err = DecodeJSON(body); err != nil {
			return &ValidationError{Problems: []string{"body must be valid JSON"}}
		}
	}
	return c.ValidateDecoded(opID, query, v, len(body) > 0)
}

// ValidateDecoded is ValidateRequest for a body already decoded with DecodeJSON; present
// says whether a body was sent at all.
func (c *Contract) ValidateDecoded(opID string, query url.Values, body any, present bool) error {
	op, ok := c.ops[opID]
	if !ok {
		return &UnknownOperationError{ID: opID}
	}
	var problems []string
	if len(query) > 0 || op.queryNeed {
		problems = append(problems, op.checkQuery(query)...)
	}
	switch {
	case op.body == nil:
	case !present && op.bodyNeed:
		problems = append(problems, "body must be object")
	case present && op.bodyFast != nil && op.bodyFast.valid(body):
		// Certainly valid (fastcheck.go); only a body it is not sure of pays for the
		// general validator, which also words the problems.
	case present:
		if err := op.body.Validate(body); err != nil {
			problems = append(problems, describe("body", err)...)
		}
	}
	if len(problems) > 0 {
		return &ValidationError{Problems: problems}
	}
	return nil
}

func (op *operation) checkQuery(query url.Values) []string {
	names := make([]string, 0, len(op.query))
	for name := range op.query {
		names = append(names, name)
	}
	slices.Sort(names)
	var problems []string
	// A parameter the operation does not declare is refused, as the platform's router does.
	extra := make([]string, 0, len(query))
	for name := range query {
		if _, ok := op.query[name]; !ok {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		problems = append(problems, "querystring must NOT have additional property '"+name+"'")
	}
	for _, name := range names {
		p := op.query[name]
		values, sent := query[name]
		if !sent {
			if p.required {
				problems = append(problems, "querystring must have required property '"+name+"'")
			}
			continue
		}
		v := coerce(p.kind, values)
		if err := p.schema.Validate(v); err != nil {
			problems = append(problems, describe("querystring/"+name, err)...)
		}
	}
	return problems
}

// coerce reads query strings as the declared type; a string that does not parse is passed
// on as is, so the schema reports the type mismatch. A scalar parameter sent more than once
// (?limit=1&limit=2) reaches the schema as the list it is, and is refused as the wrong type:
// the platform's query parser makes a list of a repeated name and its validator coerces only
// a single value to a scalar, so neither the first nor the last value is picked silently.
func coerce(kind string, values []string) any {
	if kind == "array" || len(values) > 1 {
		out := make([]any, len(values))
		for i, s := range values {
			out[i] = s
		}
		return out
	}
	s := values[0]
	switch kind {
	case "integer", "number":
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			if r, ok := new(big.Rat).SetString(s); ok {
				return jsonNumber(r)
			}
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
			return b
		}
	}
	return s
}

func jsonNumber(r *big.Rat) any {
	if r.IsInt() {
		return r.Num().Int64()
	}
	f, _ := r.Float64()
	return f
}

// ValidateResponse checks an answer's JSON body against the schema the operation declares
// for its status (exact, then "2XX"-style, then "default"). A status the operation does not
// declare is a violation when it is a success; an undeclared error status must still carry
// the error envelope {"error":{"code","message"}}.
func (c *Contract) ValidateResponse(opID string, status int, body []byte) error {
	_, err := c.validateResponse(opID, status, body)
	return err
}

// CheckResponse is ValidateResponse, then, for an answer that passes, UndeclaredMembers,
// with the body parsed once for both.
func (c *Contract) CheckResponse(opID string, status int, body []byte) (undeclared []string, err error) {
	v, err := c.validateResponse(opID, status, body)
	if err != nil {
		return nil, err
	}
	return c.undeclaredMembers(opID, status, body, v), nil
}

// validateResponse is ValidateResponse; it also returns the body as parsed for the schema,
// nil when it was not parsed.
func (c *Contract) validateResponse(opID string, status int, body []byte) (any, error) {
	op, ok := c.ops[opID]
	if !ok {
		return nil, &UnknownOperationError{ID: opID}
	}
	code := strconv.Itoa(status)
	sch, declared := op.responses[code]
	if !declared {
		sch, declared = op.responses[code[:1]+"XX"]
	}
	if !declared {
		sch, declared = op.responses["DEFAULT"]
	}
	if !declared {
		if status < 400 {
			return nil, &ValidationError{Problems: []string{fmt.Sprintf("response status %d is not declared", status)}}
		}
		return nil, checkEnvelope(body)
	}
	if sch == nil {
		return nil, nil
	}
	v, err := DecodeJSON(body)
	if err != nil {
		return nil, &ValidationError{Problems: []string{"response must be valid JSON"}}
	}
	if err := sch.Validate(v); err != nil {
		return v, &ValidationError{Problems: describe("response", err)}
	}
	return v, nil
}

func checkEnvelope(body []byte) error {
	v, err := DecodeJSON(body)
	if err != nil {
		return &ValidationError{Problems: []string{"response must be valid JSON"}}
	}
	m, _ := v.(map[string]any)
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(string)
	msg, _ := e["message"].(string)
	if code == "" || msg == "" {
		return &ValidationError{Problems: []string{"response must be an error envelope {error:{code,message}}"}}
	}
	return nil
}

// describe flattens a schema failure into the platform's lines: "<where>/<path> <rule>".
// Wrapper nodes (a $ref, a group, the schema itself) are walked through; an anyOf/oneOf is
// reported once where it failed, not branch by branch. Lines are sorted so that a message
// is the same on every run.
func describe(where string, err error) []string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{where + " " + err.Error()}
	}
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.AnyOf:
			out = append(out, at(where, e)+" must match a schema in anyOf")
			return
		case *kind.OneOf:
			out = append(out, at(where, e)+" must match exactly one schema in oneOf")
			return
		}
		if len(e.Causes) == 0 {
			line := at(where, e) + " " + rule(e.ErrorKind)
			// A drifted answer is found by reading the member's name; a request keeps the
			// platform's exact wording.
			if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok && where == "response" {
				line += " (" + strings.Join(ap.Properties, ", ") + ")"
			}
			out = append(out, line)
			return
		}
		for _, cause := range e.Causes {
			walk(cause)
		}
	}
	walk(ve)
	slices.Sort(out)
	return slices.Compact(out)
}

func at(where string, e *jsonschema.ValidationError) string {
	if len(e.InstanceLocation) == 0 {
		return where
	}
	return where + "/" + strings.Join(e.InstanceLocation, "/")
}

// rule words one broken keyword as the platform does.
func rule(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Required:
		return "must have required property '" + k.Missing[0] + "'"
	case *kind.AdditionalProperties:
		return "must NOT have additional properties"
	case *kind.FalseSchema:
		return "must NOT be valid"
	case *kind.Type:
		// The platform lists "null" last, as its schemas declare nullable types.
		want := slices.DeleteFunc(slices.Clone(k.Want), func(s string) bool { return s == "null" })
		if len(want) < len(k.Want) {
			want = append(want, "null")
		}
		return "must be " + strings.Join(want, ",")
	case *kind.Enum:
		return "must be equal to one of the allowed values"
	case *kind.Const:
		return "must be equal to constant"
	case *kind.Format:
		return fmt.Sprintf("must match format %q", k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("must match pattern %q", k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("must NOT have fewer than %d items", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("must NOT have more than %d items", k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("must NOT have fewer than %d characters", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("must NOT have more than %d characters", k.Want)
	case *kind.MinProperties:
		return fmt.Sprintf("must NOT have fewer than %d properties", k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("must NOT have more than %d properties", k.Want)
	case *kind.Minimum:
		return "must be >= " + ratString(k.Want)
	case *kind.Maximum:
		return "must be <= " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be > " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be < " + ratString(k.Want)
	case *kind.MultipleOf:
		return "must be multiple of " + ratString(k.Want)
	case *kind.UniqueItems:
		return fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", k.Duplicates[1], k.Duplicates[0])
	case *kind.PropertyNames:
		return "property name must be valid"
	case *kind.Not:
		return "must NOT be valid"
	}
	return "is invalid"
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}
