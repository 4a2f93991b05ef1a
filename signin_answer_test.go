package taskrouting

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Rule: a sign-in whose answer carries no usable token or no valid worker id is an error; the
// client never adopts such a session.
func TestSignInRefusesAnAnswerWithoutAUsableSession(t *testing.T) {
	tests := []struct {
		name, token, workerID string
		ok                    bool
	}{
		{"usable", "wt_abc", "agent_1", true},
		{"no token", "", "agent_1", false},
		{"token with a space", "wt abc", "agent_1", false},
		{"no worker id", "wt_abc", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"workspaceId":"ws_1","workerId":%q,"token":%q,"expiresAt":"2026-11-28T00:00:00Z"}`, tt.workerID, tt.token)
			}))
			t.Cleanup(srv.Close)
			w, err := NewWorkerClient(srv.URL+"/v1", WithMaxRetries(0))
			require.NoError(t, err)
			joined, err := w.AcceptInvite(context.Background(), AcceptInviteParams{Token: NewSecret("inv_1"), PIN: NewSecret("4821")})
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, tt.workerID, joined.WorkerID)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "no usable token or worker id")
			assert.Nil(t, joined)
		})
	}
}
