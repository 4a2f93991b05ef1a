package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// platformCases is testdata/platform_cases.json: the platform's published contract cases as
// our own fixtures. Each case names the state it needs (given: setups by name, or steps), the
// request, and what the answer must show: its status, the error code, headers, and the
// members of its body with the JSON type of each.
type platformCases struct {
	Setups map[string][]json.RawMessage `json:"setups"`
	Cases  []platformCase               `json:"cases"`
}

type platformCase struct {
	Name        string            `json:"name"`
	Plane       string            `json:"plane"`
	Clock       string            `json:"clock"`  // RFC 3339; default: the fixture clock t0
	Limits      map[string]int    `json:"limits"` // taskRate, queuedTasks
	Given       []json.RawMessage `json:"given"`  // a setup's name or a step
	Request     caseStep          `json:"request"`
	Status      int               `json:"status"`
	Code        string            `json:"code"`
	Headers     []string          `json:"headers"`
	Body        any               `json:"body"`
	Absent      []string          `json:"absent"`
	Unsupported string            `json:"unsupported"` // why the mock cannot have the state

	// LearningRanks: the platform's learning is on (MatcherConfig.LearningRanks).
	LearningRanks bool `json:"learningRanks"`
}

// caseStep is one request. Strings in path, url and body may hold {name}: a value captured
// by an earlier step, or {workspace}, the workspace id; a step with repeat n runs n times
// with {i} the round (0-based).
type caseStep struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"` // under /v1
	URL     string            `json:"url"`  // absolute, instead of path
	Auth    string            `json:"auth"` // "" the API key, "none", or a bearer token (e.g. "{token}")
	Body    any               `json:"body"`
	Raw     string            `json:"raw"` // a non-JSON body, sent as is
	Headers map[string]string `json:"headers"`
	Capture map[string]string `json:"capture"` // name -> dotted path in the answer
	Repeat  int               `json:"repeat"`
}

// casesWithoutMockState are the cases that need a deployment the mock server cannot be; each
// carries its reason in the fixture. The list is pinned so that it cannot grow unnoticed.
var casesWithoutMockState = []string{"attachments_unavailable_without_object_store", "stats_timeseries_requires_control_plane"}

// TestPlatformContractCases plays every platform contract case against a fresh mock server.
func TestPlatformContractCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/platform_cases.json")
	require.NoError(t, err)
	var pc platformCases
	require.NoError(t, json.Unmarshal(raw, &pc))
	var unsupported []string
	var failed atomic.Int32
	t.Run("cases", func(t *testing.T) { // returns once every parallel case has finished
		for _, tc := range pc.Cases {
			if tc.Unsupported != "" {
				unsupported = append(unsupported, tc.Name)
				t.Logf("%s: not played, the mock cannot have its state: %s", tc.Name, tc.Unsupported)
				continue
			}
			t.Run(tc.Name, func(t *testing.T) {
				t.Cleanup(func() {
					if t.Failed() {
						failed.Add(1)
					}
				})
				playCase(t, pc.Setups, tc)
			})
		}
	})
	passed := len(pc.Cases) - len(unsupported) - int(failed.Load())
	assert.Equal(t, casesWithoutMockState, unsupported, "cases that need a state the mock cannot have")
	t.Logf("platform contract cases: %d of %d played pass; %d need a state the mock cannot have", passed, len(pc.Cases)-len(unsupported), len(unsupported))
}

func playCase(t *testing.T, setups map[string][]json.RawMessage, tc platformCase) {
	t.Parallel()
	clock := t0
	if tc.Clock != "" {
		var err error
		clock, err = time.Parse(time.RFC3339, tc.Clock)
		require.NoError(t, err)
	}
	opts := []Option{WithClock(NewManualClock(clock))}
	if len(tc.Limits) > 0 {
		opts = append(opts, WithLimits(Limits{TaskRate: tc.Limits["taskRate"], QueuedTasks: tc.Limits["queuedTasks"]}))
	}
	if tc.LearningRanks {
		opts = append(opts, WithMatcher(MatcherConfig{LearningRanks: true}))
	}
	srv := Start(t, opts...)
	vars := map[string]string{"workspace": srv.WorkspaceID()}
	var given func(steps []json.RawMessage, depth int)
	given = func(steps []json.RawMessage, depth int) {
		require.Less(t, depth, 8, "setups nest too deep")
		for _, s := range steps {
			var name string
			if json.Unmarshal(s, &name) == nil {
				steps, ok := setups[name]
				require.True(t, ok, "no setup %q", name)
				given(steps, depth+1)
				continue
			}
			var st caseStep
			require.NoError(t, json.Unmarshal(s, &st))
			for i := range max(st.Repeat, 1) {
				vars["i"] = strconv.Itoa(i)
				a := sendStep(t, srv, st, vars)
				require.True(t, a.Status < 300, "given %s %s%s answered %d: %s", st.Method, st.Path, st.URL, a.Status, a.Body)
				capture(t, st.Capture, a.Body, vars)
			}
		}
	}
	given(tc.Given, 0)

	a := sendStep(t, srv, tc.Request, vars)
	require.Equal(t, tc.Status, a.Status, "%s", a.Body)
	for _, h := range tc.Headers {
		assert.NotEmpty(t, a.Header.Get(h), "header %s", h)
	}
	if tc.Code != "" {
		assert.Equal(t, tc.Code, a.errCode(t))
		var env map[string]map[string]any
		require.NoError(t, json.Unmarshal(a.Body, &env))
		assert.IsType(t, "", env["error"]["message"], "error.message")
	}
	if tc.Body != nil {
		var got any
		require.NoError(t, json.Unmarshal(a.Body, &got), "%s", a.Body)
		for _, p := range shapeProblems("", tc.Body, got) {
			t.Errorf("%s (answer %s)", p, a.Body)
		}
	}
	if len(tc.Absent) > 0 {
		got := a.json(t)
		for _, m := range tc.Absent {
			assert.NotContains(t, got, m)
		}
	}
}

// sendStep makes one request of a case, with its variables filled in.
func sendStep(t *testing.T, srv *Server, st caseStep, vars map[string]string) answer {
	t.Helper()
	fill := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	target := srv.URL() + fill(st.Path)
	if st.URL != "" {
		target = fill(st.URL)
	}
	var rd io.Reader
	switch {
	case st.Raw != "":
		rd = strings.NewReader(st.Raw)
	case st.Body != nil:
		b, err := json.Marshal(st.Body)
		require.NoError(t, err)
		rd = bytes.NewReader([]byte(fill(string(b))))
	}
	req, err := http.NewRequest(st.Method, target, rd)
	require.NoError(t, err)
	switch st.Auth {
	case "":
		req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	case "none":
	default:
		req.Header.Set("Authorization", "Bearer "+fill(st.Auth))
	}
	if st.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range st.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// capture keeps the answer's values at the given dotted paths.
func capture(t *testing.T, what map[string]string, body []byte, vars map[string]string) {
	t.Helper()
	if len(what) == 0 {
		return
	}
	var v any
	require.NoError(t, json.Unmarshal(body, &v))
	for name, path := range what {
		cur := v
		for _, k := range strings.Split(path, ".") {
			m, ok := cur.(map[string]any)
			require.True(t, ok, "capture %s: %s is not in %s", name, path, body)
			cur = m[k]
		}
		s, ok := cur.(string)
		require.True(t, ok, "capture %s: %s is not a string in %s", name, path, body)
		vars[name] = s
	}
}

// shapeProblems compares an answer with a case's body: every member the case shows must be
// present with the JSON type of the case's value (null: present, any type); arrays are
// compared element by element for the elements the case shows.
func shapeProblems(at string, want, got any) []string {
	if want == nil {
		return nil
	}
	kind := func(v any) string {
		switch v.(type) {
		case nil:
			return "null"
		case map[string]any:
			return "object"
		case []any:
			return "array"
		case string:
			return "string"
		case float64:
			return "number"
		case bool:
			return "boolean"
		}
		return fmt.Sprintf("%T", v)
	}
	if kind(want) != kind(got) {
		return []string{fmt.Sprintf("%s is %s, the case shows %s", orRoot(at), kind(got), kind(want))}
	}
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s/%s is missing", at, k))
				continue
			}
			out = append(out, shapeProblems(at+"/"+k, w[k], gv)...)
		}
	case []any:
		g := got.([]any)
		for i, e := range w {
			if i >= len(g) {
				out = append(out, fmt.Sprintf("%s/%d is missing (%d elements)", at, i, len(g)))
				continue
			}
			out = append(out, shapeProblems(at+"/"+strconv.Itoa(i), e, g[i])...)
		}
	}
	return out
}

func orRoot(at string) string {
	if at == "" {
		return "the body"
	}
	return at
}
