package taskrouting

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetIdentityAnswers(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   *WorkerIdentity // nil: an error
	}{
		{"label left out", `{"identity":{"workerId":"agent_1","label":null,"hasPin":true}}`, &WorkerIdentity{WorkerID: "agent_1", HasPIN: true}},
		{"extra members", `{"identity":{"workerId":"agent_1","label":"desk 4","hasPin":true,"createdAt":1}}`, &WorkerIdentity{WorkerID: "agent_1", Label: "desk 4", HasPIN: true}},
		{"no identity member", `{"workerId":"agent_1"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, tc.answer)
			c := newTestClient(t, srv.URL+"/v1")
			got, err := c.Workers.SetIdentity(context.Background(), "agent_1", SetIdentityParams{PIN: "4921"})
			if tc.want == nil {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "no identity")
				assert.Nil(t, got)
			} else {
				require.NoError(t, err)
				diff(t, "identity", tc.want, got)
			}
			require.Len(t, rec.all(), 1)
			diff(t, "body", map[string]any{"pin": "4921"}, jsonValue(t, rec.all()[0].Body))
		})
	}
}

func TestSecretParamsFormatting(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"login %v", WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: "4921"}, `{WorkspaceID:"ws_1" WorkerID:"agent_1" PIN:[redacted]}`},
		{"identity %v", SetIdentityParams{PIN: "4921", Label: "desk 4"}, `{PIN:[redacted] Label:"desk 4"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diff(t, "%v", tc.want, fmt.Sprintf("%v", tc.v))
			assert.NotContains(t, fmt.Sprintf("%#v", tc.v), "4921")
		})
	}
}
