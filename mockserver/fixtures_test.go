package mockserver

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireFixture is one file of testdata/wire (format in its README.md).
type wireFixture struct {
	Operation string `json:"operation"`
	Seq       int    `json:"seq"`
	Setup     []struct {
		Method string          `json:"method"`
		Path   string          `json:"path"`
		Body   json.RawMessage `json:"body"`
	} `json:"setup"`
	Request struct {
		Method         string            `json:"method"`
		Path           string            `json:"path"`
		Query          map[string]string `json:"query"`
		IdempotencyKey bool              `json:"idempotencyKey"`
		Body           json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"response"`
}

func loadFixtures(t *testing.T) []wireFixture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "wire", "*.json"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("no wire fixtures yet")
	}
	var out []wireFixture
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var fx wireFixture
		require.NoError(t, json.Unmarshal(raw, &fx), f)
		out = append(out, fx)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// volatile members depend on the clock or on learning; the fixtures show their shape only.
var volatileMembers = map[string]bool{
	"createdAt": true, "matchedAt": true, "score": true, "meanReward": true, "stats": true,
	"learnedWeight": true, "modelSize": true, "count": true, "queuedAt": true,
	"token": true, "since": true, "endedAt": true,
}

// volatilePaths are members that are server-made ids in one place only: an identity's id is
// random, while task and worker ids elsewhere are the caller's and must match.
var volatilePaths = map[string]bool{"body.identity.id": true}

// subsetDiff lists where got does not contain want: every member of a fixture object must be
// present with an equal value (volatile members only present); the server may add members.
// Reason lists may carry extra reasons (e.g. learningBoost).
func subsetDiff(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want object, got %v", path, got)}
		}
		var diffs []string
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing", path, k))
				continue
			}
			if volatileMembers[k] || volatilePaths[path+"."+k] {
				continue
			}
			diffs = append(diffs, subsetDiff(path+"."+k, wv, gv)...)
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want array, got %v", path, got)}
		}
		if len(g) != len(w) && !(filepath.Ext(path) == ".reasons" && len(g) > len(w)) {
			return []string{fmt.Sprintf("%s: want %d items, got %d", path, len(w), len(g))}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, subsetDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return diffs
	default:
		if !cmp.Equal(want, got) {
			return []string{fmt.Sprintf("%s: want %v, got %v", path, want, got)}
		}
		return nil
	}
}

// TestWireFixturesReplay replays the client's wire fixtures in story order against a fresh
// server and checks each answer server-side: status, ids, statuses and echoed members.
func TestWireFixturesReplay(t *testing.T) {
	t.Parallel()
	fixtures := loadFixtures(t)
	srv := Start(t, WithClock(NewManualClock(t0)))
	token := "" // the worker plane's session, from worker.login's answer
	for _, fx := range fixtures {
		for _, s := range fx.Setup {
			a := api(t, srv, s.Method, s.Path, bodyOrNil(s.Body))
			require.Less(t, a.Status, 300, "%s setup %s %s: %s", fx.Operation, s.Method, s.Path, a.Body)
		}
		path := fx.Request.Path
		if len(fx.Request.Query) > 0 {
			q := url.Values{}
			for k, v := range fx.Request.Query {
				q.Set(k, v)
			}
			path += "?" + q.Encode()
		}
		var hdr []string
		if fx.Request.IdempotencyKey {
			hdr = []string{"Idempotency-Key", fmt.Sprintf("fixture-%d", fx.Seq)}
		}
		var a answer
		switch {
		case fx.Operation == "worker.login":
			a = call(t, srv, "", fx.Request.Method, path, bodyOrNil(fx.Request.Body), hdr...)
			var login struct{ Token string }
			if json.Unmarshal(a.Body, &login) == nil {
				token = login.Token
			}
		case workspacePlane(fx.Operation):
			a = api(t, srv, fx.Request.Method, path, bodyOrNil(fx.Request.Body), hdr...)
		default:
			a = call(t, srv, token, fx.Request.Method, path, bodyOrNil(fx.Request.Body), hdr...)
			assert.Empty(t, a.Header.Get("X-Quota-Workers-Limit"), "%s: no quota headers on the worker plane", fx.Operation)
		}
		if !assert.Equal(t, fx.Response.Status, a.Status, "%s: %s", fx.Operation, a.Body) {
			continue
		}
		if len(fx.Response.Body) == 0 {
			assert.Empty(t, a.Body, fx.Operation)
			continue
		}
		var want, got any
		require.NoError(t, json.Unmarshal(fx.Response.Body, &want))
		require.NoError(t, json.Unmarshal(a.Body, &got), "%s: %s", fx.Operation, a.Body)
		assert.Empty(t, subsetDiff("body", want, got), "%s answered %s", fx.Operation, a.Body)
	}
}

// workspacePlane reports whether an operation is called with the API key.
func workspacePlane(op string) bool {
	for _, p := range []string{"tasks.", "workers.", "decisions.", "learning.", "identity."} {
		if strings.HasPrefix(op, p) {
			return true
		}
	}
	return false
}

func bodyOrNil(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return []byte(raw)
}
