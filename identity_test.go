package taskrouting

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetIdentityAnswers decodes the platform's {identity:{...}} answer:
// ISO-8601 times (or epoch ms, or null), members it may add, and the
// answer without an identity.
func TestSetIdentityAnswers(t *testing.T) {
	created := time.Date(2026, 7, 24, 11, 30, 0, 0, time.UTC)
	tests := []struct {
		name   string
		answer string
		want   *WorkerIdentity // nil: an error
	}{
		{"platform shape", `{"identity":{"id":"wid_1","workerId":"agent_1","label":"desk 4","status":"active","email":null,"hasPin":true,"activatedAt":null,"createdAt":"2026-07-24T11:30:00.000Z","revokedAt":null}}`,
			&WorkerIdentity{ID: "wid_1", WorkerID: "agent_1", Label: "desk 4", Status: "active", HasPIN: true, CreatedAt: created}},
		{"epoch ms times", `{"identity":{"id":"wid_1","workerId":"agent_1","label":"desk 4","hasPin":true,"createdAt":1784892600000,"revokedAt":1784892600000}}`,
			&WorkerIdentity{ID: "wid_1", WorkerID: "agent_1", Label: "desk 4", HasPIN: true, CreatedAt: created, RevokedAt: created}},
		{"unknown members", `{"identity":{"id":"wid_1","workerId":"agent_1","label":"desk 4","hasPin":true,"invitedBy":"ops"}}`,
			&WorkerIdentity{ID: "wid_1", WorkerID: "agent_1", Label: "desk 4", HasPIN: true}},
		{"no identity member", `{"workerId":"agent_1"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, tc.answer)
			c := newTestClient(t, srv.URL+"/v1")
			got, err := c.Workers.SetIdentity(context.Background(), "agent_1", SetIdentityParams{Label: "desk 4", PIN: NewSecret("4921")})
			if tc.want == nil {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "no identity")
				assert.Nil(t, got)
			} else {
				require.NoError(t, err)
				diff(t, "identity", tc.want, got)
			}
			require.Len(t, rec.all(), 1)
			diff(t, "body", map[string]any{"label": "desk 4", "pin": "4921"}, jsonValue(t, rec.all()[0].Body))
		})
	}
}

// TestSetIdentityLimits checks the platform's lengths (label 1-128, PIN
// 4-256 characters) client-side: no request, a *ParamError naming the
// field, and never the PIN in the message.
func TestSetIdentityLimits(t *testing.T) {
	const pin = "9317"
	tests := []struct {
		name  string
		p     SetIdentityParams
		param string // "" when the call is sent
	}{
		{"shortest", SetIdentityParams{Label: "d", PIN: NewSecret(pin)}, ""},
		{"longest", SetIdentityParams{Label: strings.Repeat("é", 128), PIN: NewSecret(strings.Repeat("7", 256))}, ""},
		{"no label", SetIdentityParams{PIN: NewSecret(pin)}, "SetIdentityParams.Label"},
		{"label too long", SetIdentityParams{Label: strings.Repeat("é", 129), PIN: NewSecret(pin)}, "SetIdentityParams.Label"},
		{"PIN too short", SetIdentityParams{Label: "desk 4", PIN: NewSecret("931")}, "SetIdentityParams.PIN"},
		{"PIN too long", SetIdentityParams{Label: "desk 4", PIN: NewSecret(strings.Repeat("7", 257))}, "SetIdentityParams.PIN"},
		{"with email", SetIdentityParams{Label: "desk 4", PIN: NewSecret(pin), Email: "ada@example.com"}, ""},
		{"email with a name", SetIdentityParams{Label: "desk 4", PIN: NewSecret(pin), Email: "Ada <ada@example.com>"}, "SetIdentityParams.Email"},
		{"not an email", SetIdentityParams{Label: "desk 4", PIN: NewSecret(pin), Email: "ada"}, "SetIdentityParams.Email"},
		{"email of 257 characters", SetIdentityParams{Label: "desk 4", PIN: NewSecret(pin), Email: strings.Repeat("a", 245) + "@example.com"}, "SetIdentityParams.Email"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{"identity":{"id":"wid_1","workerId":"agent_1","label":"d","hasPin":true}}`)
			c := newTestClient(t, srv.URL+"/v1")
			_, err := c.Workers.SetIdentity(context.Background(), "agent_1", tc.p)
			if tc.param == "" {
				require.NoError(t, err)
				reqs := rec.all()
				require.Len(t, reqs, 1)
				checkRequestContract(t, reqs[0])
				return
			}
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.ErrorIs(t, err, ErrInvalidParams)
			assert.NotContains(t, err.Error(), "931")
			assert.Empty(t, rec.all(), "no request is sent")
		})
	}
}

func TestSecretParamsFormatting(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"login %v", WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: NewSecret("4921")}, `{WorkspaceID:"ws_1" WorkerID:"agent_1" PIN:[redacted]}`},
		{"identity %v", SetIdentityParams{Label: "desk 4", PIN: NewSecret("4921")}, `{Label:"desk 4" PIN:[redacted] Email:""}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diff(t, "%v", tc.want, fmt.Sprintf("%v", tc.v))
			assert.NotContains(t, fmt.Sprintf("%#v", tc.v), "4921")
		})
	}
}

// TestWorkerIdentityRoundTrip writes the identity as the platform does
// (ISO-8601 times, zero times left out) and reads it back unchanged.
func TestWorkerIdentityRoundTrip(t *testing.T) {
	created := time.Date(2026, 7, 24, 11, 30, 0, 0, time.UTC)
	in := WorkerIdentity{ID: "wid_1", WorkerID: "agent_1", Label: "desk 4", Status: "active", HasPIN: true, CreatedAt: created}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	diff(t, "wire", jsonValue(t, []byte(`{"id":"wid_1","workerId":"agent_1","label":"desk 4","status":"active","hasPin":true,
		"createdAt":"2026-07-24T11:30:00.000Z"}`)), jsonValue(t, b))
	var back WorkerIdentity
	require.NoError(t, json.Unmarshal(b, &back))
	diff(t, "round trip", in, back)
}
