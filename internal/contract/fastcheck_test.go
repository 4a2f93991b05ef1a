package contract

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFastCheckAgreesWithTheValidator is the differential test of fastcheck.go: bodies
// generated from each operation's schema (values on, inside and just past every bound,
// wrong types, unknown members, repeated items, multi-byte text), parsed as the server
// parses them, must never be called valid by the fast walk when the general validator
// refuses them. A body the fast walk is not sure of is fine: the validator decides it.
func TestFastCheckAgreesWithTheValidator(t *testing.T) {
	c, err := Default()
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(33, 5))
	perOp := 200
	if testing.Short() {
		perOp = 100
	}
	fastValid, checked := 0, 0
	for _, op := range c.ordered {
		if op.body == nil || op.bodyFast == nil {
			continue
		}
		schema := lookup(c.root, refTokens(bodySchemaRef(t, c, op)))
		for range perOp {
			text, err := json.Marshal(genValue(rng, c.root, schema, 0))
			require.NoError(t, err)
			v, err := DecodeJSON(text)
			require.NoError(t, err)
			checked++
			if !op.bodyFast.valid(v) {
				continue
			}
			fastValid++
			if err := op.body.Validate(v); err != nil {
				t.Fatalf("%s: the fast walk passes %s, the validator refuses it: %v", op.id, text, err)
			}
		}
	}
	t.Logf("fast-valid bodies: %d of %d", fastValid, checked)
	// The generator must reach the valid side often enough for the test to mean something.
	assert.Greater(t, fastValid, checked/20, "fast-valid bodies: %d of %d", fastValid, checked)
}

// TestFastCheckCoversTheCommonCreate holds the fast walk to the bodies it exists for: a
// plain create passes it, so the general validator is not run on every create.
func TestFastCheckCoversTheCommonCreate(t *testing.T) {
	c, err := Default()
	require.NoError(t, err)
	op := c.ops["tasks.create"]
	require.NotNil(t, op.bodyFast, "tasks.create's body schema no longer compiles to the fast walk")
	for _, body := range []string{
		`{"tags":["english","billing"],"priority":5,"title":"Refund request","meta":{"orderId":"o_123"}}`,
		`{"id":"t-1","tags":["a"],"sla":{"completeWithinMs":60000},"escalation":null}`,
	} {
		v, err := DecodeJSON([]byte(body))
		require.NoError(t, err)
		assert.True(t, op.bodyFast.valid(v), body)
	}
	for _, body := range []string{
		`{"tags":[]}`, `{"tags":["a","a"]}`, `{"id":"a b"}`, `{"priority":"5"}`, `{"nope":1}`,
		`{"latitude":90}`, `{"slot":{"startAt":1.0,"durationMs":5}}`, `{"sla":{"onExpire":"later"}}`,
		`{"title":""}`, `{"escalation":{}}`,
	} {
		v, err := DecodeJSON([]byte(body))
		require.NoError(t, err)
		assert.False(t, op.bodyFast.valid(v), body)
	}
}

func bodySchemaRef(t *testing.T, c *Contract, op *operation) string {
	t.Helper()
	item, _ := lookup(c.root, []string{"paths", op.path}).(map[string]any)
	raw, _ := item[strings.ToLower(op.method)].(map[string]any)
	rbm, tokens := resolve(c.root, raw["requestBody"], []string{"paths", op.path, strings.ToLower(op.method), "requestBody"})
	require.True(t, hasJSONSchema(rbm), op.id)
	var b strings.Builder
	b.WriteString("#")
	for _, tok := range append(tokens, "content", "application/json", "schema") {
		b.WriteString("/" + escapeToken(tok))
	}
	return b.String()
}

// genValue makes a value for schema, mostly of its type and close to its bounds, now and
// then of another type or with a member or item too many.
func genValue(rng *rand.Rand, root map[string]any, schema any, depth int) any {
	m, _ := schema.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		return genValue(rng, root, lookup(root, refTokens(ref)), depth)
	}
	if depth > 6 || rng.IntN(12) == 0 {
		return anyValue(rng)
	}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 && rng.IntN(5) > 0 {
		return enum[rng.IntN(len(enum))]
	}
	kind := "any"
	switch t := m["type"].(type) {
	case string:
		kind = t
	case []any:
		kind, _ = t[rng.IntN(len(t))].(string)
	}
	switch kind {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				s, _ := r.(string)
				required[s] = true
			}
		}
		for name, ps := range props {
			if (required[name] && rng.IntN(10) > 0) || rng.IntN(3) == 0 {
				out[name] = genValue(rng, root, ps, depth+1)
			}
		}
		if addl, ok := m["additionalProperties"].(map[string]any); ok {
			for i := range rng.IntN(4) {
				out["k"+strconv.Itoa(i)] = genValue(rng, root, addl, depth+1)
			}
		}
		if rng.IntN(15) == 0 {
			out["unknownMember"] = anyValue(rng)
		}
		return out
	case "array":
		n := nearBound(rng, m, "minItems", "maxItems", 4)
		if n > 40 {
			n = 40 + rng.IntN(3)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = genValue(rng, root, m["items"], depth+1)
		}
		if n > 1 && rng.IntN(4) == 0 {
			out[n-1] = out[0]
		}
		return out
	case "string":
		n := nearBound(rng, m, "minLength", "maxLength", 8)
		if n > 300 && rng.IntN(4) > 0 {
			n = rng.IntN(300)
		}
		return genString(rng, n)
	case "number", "integer":
		return genNumber(rng, m)
	case "boolean":
		return rng.IntN(2) == 0
	case "null":
		return nil
	}
	return anyValue(rng)
}

// nearBound picks a count on, inside or just past the schema's lower and upper bounds.
func nearBound(rng *rand.Rand, m map[string]any, lo, hi string, typical int) int {
	var candidates []int
	if n, ok := m[lo].(json.Number); ok {
		i, _ := strconv.Atoi(string(n))
		candidates = append(candidates, i-1, i, i+1)
	}
	if n, ok := m[hi].(json.Number); ok {
		i, _ := strconv.Atoi(string(n))
		candidates = append(candidates, i-1, i, i+1)
	}
	candidates = append(candidates, rng.IntN(typical+1), rng.IntN(typical+1), 1)
	return max(candidates[rng.IntN(len(candidates))], 0)
}

// genString mixes characters a pattern takes and ones it refuses, of one to four bytes
// each, so lengths are counted in code points, not bytes.
func genString(rng *rand.Rand, n int) string {
	pool := []string{"a", "Z", "7", "_", ".", "-", " ", "/", "é", "€", "😀", "x"}
	var b strings.Builder
	for range n {
		if rng.IntN(4) == 0 {
			b.WriteString(pool[rng.IntN(len(pool))])
		} else {
			b.WriteString(pool[rng.IntN(3)])
		}
	}
	return b.String()
}

// genNumber writes numbers on and around the schema's bounds, in the spellings JSON
// allows (1, 1.0, 1e0, -0, fractions, numbers too large for float64).
func genNumber(rng *rand.Rand, m map[string]any) json.Number {
	var bases []float64
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if n, ok := m[k].(json.Number); ok {
			f, _ := strconv.ParseFloat(string(n), 64)
			bases = append(bases, f)
		}
	}
	bases = append(bases, 0, float64(rng.IntN(100)))
	f := bases[rng.IntN(len(bases))]
	switch rng.IntN(6) {
	case 0:
		f++
	case 1:
		f--
	case 2:
		f += 0.5
	case 3:
		f -= 0.000001
	}
	switch rng.IntN(8) {
	case 0:
		return json.Number(strconv.FormatFloat(f, 'f', 1, 64))
	case 1:
		return json.Number(strconv.FormatFloat(f, 'e', -1, 64))
	case 2:
		return json.Number("-0")
	case 3:
		return json.Number("1e400")
	case 4:
		// A bound written with more digits than float64 keeps.
		return json.Number(strconv.FormatFloat(f, 'f', 0, 64) + ".0000000000000000001")
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

func anyValue(rng *rand.Rand) any {
	switch rng.IntN(7) {
	case 0:
		return nil
	case 1:
		return true
	case 2:
		return "s"
	case 3:
		return json.Number("1.5")
	case 4:
		return json.Number("3")
	case 5:
		return map[string]any{}
	}
	return []any{}
}

// TestFastCheckTypes holds the walk's type test to JSON Schema's for every type against a
// value of every kind, including types no schema of api/openapi.json uses alone ("null").
func TestFastCheckTypes(t *testing.T) {
	values := map[string]any{
		"null": nil, "boolean": true, "object": map[string]any{}, "array": []any{},
		"string": "s", "number": json.Number("1.5"), "integer": json.Number("3"),
	}
	for typ := range values {
		s := compileFast(nil, map[string]any{"type": typ})
		require.NotNil(t, s, typ)
		for kind, v := range values {
			want := kind == typ || (typ == "number" && kind == "integer")
			assert.Equal(t, want, s.valid(v), "type %s, value of kind %s", typ, kind)
		}
	}
}
