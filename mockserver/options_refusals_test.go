package mockserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewRefusesBadOptions: each option that cannot hold refuses New with its message (and
// the key refused is never echoed); several are joined, one a line; the edge values pass.
func TestNewRefusesBadOptions(t *testing.T) {
	cases := []struct {
		name string
		opts []Option
		want string // "" when New succeeds
	}{
		{"session under a minute", []Option{WithWorkerSessionTTL(time.Minute - time.Millisecond)}, "mockserver: a worker session lives at least a minute"},
		{"session of a minute", []Option{WithWorkerSessionTTL(time.Minute)}, ""},
		{"key of another kind", []Option{WithAPIKey("pk_test_secretvalue")}, "mockserver: api key must start with sk_test_ or sk_live_"},
		{"key of the prefix only", []Option{WithAPIKey("sk_live_")}, "mockserver: api key is too short"},
		{"key of one character", []Option{WithAPIKey("sk_live_x")}, ""},
		{"unknown rules", []Option{WithMatcher(MatcherConfig{Rules: "fastest"})}, `mockserver: unknown matcher rules "fastest"`},
		{"both", []Option{WithAPIKey("pk_test_secretvalue"), WithWorkerSessionTTL(0)},
			"mockserver: api key must start with sk_test_ or sk_live_\nmockserver: a worker session lives at least a minute"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.opts...)
			if tc.want == "" {
				require.NoError(t, err)
				s.Close()
				return
			}
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Equal(t, tc.want, err.Error())
			assert.NotContains(t, err.Error(), "secretvalue")
		})
	}
	s, err := New(WithWorkerSessionTTL(time.Minute), WithAPIKey("sk_live_x"))
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, time.Minute, s.cfg.workerSessionTTL)
	assert.Equal(t, "sk_live_x", s.APIKey())
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestDeliveryClientCarriesWebhooks: WithDeliveryClient's client sends every delivery (here
// a transport that answers 204 itself to a URL where nothing listens; one attempt, so a
// delivery that missed the client fails at once).
func TestDeliveryClientCarriesWebhooks(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		sent = append(sent, r.Method+" "+r.URL.String())
		mu.Unlock()
		return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
	})}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	srv := Start(t, WithClock(NewManualClock(t0)), WithWebhookURL(gone.URL+"/in"), WithDeliveryClient(client),
		WithDeliveryPolicy(DeliveryPolicy{MaxAttempts: 1, Timeout: time.Second}))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"en"}})
	require.NoError(t, srv.WaitForDeliveries(t.Context()))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"POST " + gone.URL + "/in"}, sent, "task.matched, through the given client")
}

// TestDeliveryPolicyMaxBackoffNotBelowInitial: a MaxBackoff below InitialBackoff (given, or
// the 2 s default) is raised to it, so a backoff never shrinks below its first step; a
// policy given in full is kept.
func TestDeliveryPolicyMaxBackoffNotBelowInitial(t *testing.T) {
	cases := []struct{ in, want DeliveryPolicy }{
		{DeliveryPolicy{InitialBackoff: 3 * time.Second, MaxBackoff: time.Second}, DeliveryPolicy{MaxAttempts: 6, InitialBackoff: 3 * time.Second, MaxBackoff: 3 * time.Second, Timeout: 5 * time.Second}},
		{DeliveryPolicy{InitialBackoff: 3 * time.Second}, DeliveryPolicy{MaxAttempts: 6, InitialBackoff: 3 * time.Second, MaxBackoff: 3 * time.Second, Timeout: 5 * time.Second}},
		{DeliveryPolicy{MaxAttempts: 2, InitialBackoff: time.Second, MaxBackoff: time.Second, Timeout: time.Second}, DeliveryPolicy{MaxAttempts: 2, InitialBackoff: time.Second, MaxBackoff: time.Second, Timeout: time.Second}},
	}
	for _, tc := range cases {
		assert.Empty(t, cmp.Diff(tc.want, tc.in.withDefaults()), "%+v", tc.in)
	}
}

// TestRestoreErrorsNameTheMember: Restore's Go error is a *StateError whose text names the
// member at fault, or the document as a whole when it is not JSON.
func TestRestoreErrorsNameTheMember(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	cases := []struct {
		doc     string
		pointer string
		text    string
	}{
		{`{"kind":"other","version":1,"workspaces":[]}`, "/kind",
			`mockserver: state /kind: is "other"; a mock server state is "taskrouting.mockserver.state"`},
		{`{"kind":`, "", "mockserver: state: not a JSON document: unexpected EOF"},
	}
	for _, tc := range cases {
		err := srv.Restore(context.Background(), []byte(tc.doc))
		var se *StateError
		require.True(t, errors.As(err, &se), "%v", err)
		assert.Equal(t, tc.pointer, se.Pointer)
		assert.Equal(t, tc.text, err.Error())
	}
}
