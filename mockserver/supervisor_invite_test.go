package mockserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInviteSupervisorRules: InviteSupervisor's defaults (the sandbox workspace, the label
// "Supervisor", seven days on the server's clock, ids counting the links made) and its
// refusals (an unknown workspace or team, a label over 128 bytes, an email over 256), each
// with its message; a refused invite makes no link and uses no id.
func TestInviteSupervisorRules(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	team := mustAPI(t, srv, 200, "POST", "/teams", map[string]any{"key": "a", "name": "A"}).json(t)["id"].(string)
	tests := []struct {
		name string
		in   SupervisorInvite
		want SupervisorLink // Token left out
		err  string
	}{
		{"defaults", SupervisorInvite{}, SupervisorLink{SupervisorID: "sup_1", WorkspaceID: srv.WorkspaceID(), Label: "Supervisor"}, ""},
		{"unknown workspace", SupervisorInvite{WorkspaceID: "ws_nope"}, SupervisorLink{}, "mockserver: workspace ws_nope not found"},
		{"unknown team", SupervisorInvite{TeamID: "team_nope"}, SupervisorLink{}, "mockserver: team team_nope not found"},
		{"label of 129 bytes", SupervisorInvite{Label: strings.Repeat("l", 129)}, SupervisorLink{},
			"mockserver: label must have at most 128 characters and email at most 256"},
		{"email of 257 bytes", SupervisorInvite{Email: strings.Repeat("e", 257)}, SupervisorLink{},
			"mockserver: label must have at most 128 characters and email at most 256"},
		{"label of 128 bytes, email of 256, a team", SupervisorInvite{Label: strings.Repeat("l", 128), Email: strings.Repeat("e", 256), TeamID: team},
			SupervisorLink{SupervisorID: "sup_2", WorkspaceID: srv.WorkspaceID(), Label: strings.Repeat("l", 128), Email: strings.Repeat("e", 256), TeamID: team}, ""},
	}
	made := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			link, err := srv.InviteSupervisor(tc.in)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				assert.Equal(t, SupervisorLink{}, link)
				assert.Len(t, srv.SupervisorLinks(), made, "a refused invite makes no link")
				return
			}
			require.NoError(t, err)
			made++
			assert.True(t, strings.HasPrefix(link.Token, "svl_"), link.Token)
			link.Token = ""
			tc.want.CreatedAt, tc.want.ExpiresAt = t0, t0.Add(7*24*time.Hour)
			if d := cmp.Diff(tc.want, link); d != "" {
				t.Errorf("link (-want +got):\n%s", d)
			}
			assert.Len(t, srv.SupervisorLinks(), made)
		})
	}
}

// TestSupervisorLinkPrintsNoToken: %v, %+v, %#v and %s of a link leave its token out.
func TestSupervisorLinkPrintsNoToken(t *testing.T) {
	srv := Start(t)
	link, err := srv.InviteSupervisor(SupervisorInvite{Label: "Dana"})
	require.NoError(t, err)
	want := "mockserver.SupervisorLink{SupervisorID: sup_1, WorkspaceID: " + srv.WorkspaceID() + ", TeamID: , Token: [redacted]}"
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		got := fmt.Sprintf(verb, link)
		assert.Equal(t, want, got, verb)
		assert.NotContains(t, got, link.Token, verb)
	}
}

// TestAdminSupervisorLinkRefusesAnUnknownMember: POST /_mock/supervisor-links reads a
// SupervisorInvite and nothing else; an unknown member is a 400 naming it, and no link is made.
func TestAdminSupervisorLinkRefusesAnUnknownMember(t *testing.T) {
	srv := Start(t)
	a := adminPost(t, srv, "/supervisor-links", `{"lable":"Dana"}`)
	require.Equal(t, http.StatusBadRequest, a.Status)
	assert.Equal(t, CodeValidationFailed, a.errCode(t))
	assert.Contains(t, string(a.Body), `unknown field \"lable\"`)
	assert.Empty(t, srv.SupervisorLinks())
}
