package mockserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStartGivesAWorkingServer(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	assert.True(t, strings.HasSuffix(srv.URL(), "/v1"), srv.URL())
	assert.True(t, strings.HasPrefix(srv.APIKey(), "sk_test_"))
	assert.True(t, strings.HasPrefix(srv.SigningSecret(), "whsec_"))

	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	created := mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"english"}})
	id := created.json(t)["id"].(string)
	got := mustAPI(t, srv, 200, "GET", "/tasks/"+id, nil).json(t)
	assert.Equal(t, "pending", got["status"])
	assert.Equal(t, "agent_1", got["workerId"])
	assert.Equal(t, "1000000", created.Header.Get("X-Quota-Task-Rate-Limit"))
}
