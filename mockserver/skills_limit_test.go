package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSkillListsTakeAnIntegerLimit: the contract types the skill lists' limit as a number
// in range; the server also wants an integer (2.0 is one), answers 400 for 1.5, and cuts the
// list, ordered by key, at the limit.
func TestSkillListsTakeAnIntegerLimit(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	for _, k := range []string{"billing", "refunds", "arabic"} {
		mustAPI(t, srv, 201, "POST", "/skills", map[string]any{"key": k, "name": k})
	}
	keys := func(path string) []string {
		var out struct{ Skills []struct{ Key string } }
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", path, nil).Body, &out))
		var ks []string
		for _, s := range out.Skills {
			ks = append(ks, s.Key)
		}
		return ks
	}
	assert.Empty(t, cmp.Diff([]string{"arabic", "billing", "refunds"}, keys("/skills")))
	assert.Empty(t, cmp.Diff([]string{"arabic", "billing"}, keys("/skills?limit=2.0")))
	assert.Empty(t, cmp.Diff([]string{"arabic"}, keys("/skills/suggest?limit=1")))
	const notInteger = `{"error":{"code":"validation_failed","message":"querystring/limit must be integer"}}`
	for _, path := range []string{"/skills?limit=1.5", "/skills/suggest?limit=2.5"} {
		assert.Empty(t, cmp.Diff(notInteger, string(mustAPI(t, srv, 400, "GET", path, nil).Body)), path)
	}
}
