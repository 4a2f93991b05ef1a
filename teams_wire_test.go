package taskrouting

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const teamWire = `{"id":"team_1","key":"billing","tag":"team:billing","name":"Billing","description":"Invoices",
	"color":"#5b8def","createdAt":"2025-11-21T04:40:00.000Z"}`

var teamDecoded = &Team{ID: "team_1", Key: "billing", Tag: "team:billing", Name: "Billing", Description: "Invoices",
	Color: "#5b8def", CreatedAt: t0}

// teamsCases are the teams calls on the wire: the request each sends and how
// it decodes the platform's answer. Every request and answer is also held to
// api/openapi.json.
var teamsCases = []struct {
	name       string
	op         string
	call       func(ctx context.Context, c *Client) (any, error)
	wantMethod string
	wantPath   string
	wantBody   string // "" for none
	status     int
	answer     string
	want       any
}{
	{"create sends only what is set", "teams.create", func(ctx context.Context, c *Client) (any, error) {
		return c.Teams.Create(ctx, CreateTeamParams{Key: "billing", Name: "Billing"})
	}, "POST", "/teams", `{"key":"billing","name":"Billing"}`, 200, teamWire, teamDecoded},
	{"list", "teams.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Teams.List(ctx)
	}, "GET", "/teams", "", 200,
		`{"teams":[` + teamWire + `,{"id":"team_2","key":"eu","tag":"team:eu","name":"EU","description":null,"color":null}]}`,
		[]Team{*teamDecoded, {ID: "team_2", Key: "eu", Tag: "team:eu", Name: "EU"}}},
	{"get escapes the id", "teams.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Teams.Get(ctx, "team 1")
	}, "GET", "/teams/team%201", "", 200, teamWire, teamDecoded},
	{"patch omits absent members and sends null", "teams.patch", func(ctx context.Context, c *Client) (any, error) {
		return c.Teams.Patch(ctx, "team_1", PatchTeamParams{Name: "Billing EU", Color: Null[string]()})
	}, "PATCH", "/teams/team_1", `{"name":"Billing EU","color":null}`, 200, teamWire, teamDecoded},
	{"remove", "teams.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Teams.Remove(ctx, "team_1")
	}, "DELETE", "/teams/team_1", "", 204, "", nil},
	{"members", "teams.members", func(ctx context.Context, c *Client) (any, error) {
		return c.Teams.Members(ctx, "team_1")
	}, "GET", "/teams/team_1/members", "", 200,
		`{"teamId":"team_1","members":[{"workerId":"w1","role":"lead","addedAt":"2025-11-21T04:40:00.000Z"},{"workerId":"w2"}]}`,
		&TeamMembers{TeamID: "team_1", Members: []TeamMember{{WorkerID: "w1", Role: "lead", AddedAt: t0}, {WorkerID: "w2"}}}},
	{"set members replaces the roster", "teams.setMembers", func(ctx context.Context, c *Client) (any, error) {
		return c.Teams.SetMembers(ctx, "team_1", []string{"w1"})
	}, "PUT", "/teams/team_1/members", `{"workerIds":["w1"]}`, 200, `{"teamId":"team_1","workerIds":["w1"]}`,
		&TeamRoster{TeamID: "team_1", WorkerIDs: []string{"w1"}}},
	{"set members to nobody sends an empty list", "teams.setMembers", func(ctx context.Context, c *Client) (any, error) {
		return c.Teams.SetMembers(ctx, "team_1", nil)
	}, "PUT", "/teams/team_1/members", `{"workerIds":[]}`, 200, `{"teamId":"team_1","workerIds":[]}`,
		&TeamRoster{TeamID: "team_1", WorkerIDs: []string{}}},
}

func TestTeamsWire(t *testing.T) {
	require.Equal(t, "2025-11-21T04:40:00Z", t0.Format(time.RFC3339), "the fixtures' ISO times are t0")
	for _, tc := range teamsCases {
		runWireCase(t, wireCase{tc.name, tc.op, tc.call, tc.wantMethod, tc.wantPath, "", tc.wantBody, tc.status, tc.answer, tc.want})
	}
}

// TestTeamsRefusedBeforeSending checks that input the platform would refuse
// is a *ParamError and nothing reaches the server.
func TestTeamsRefusedBeforeSending(t *testing.T) {
	many := make([]string, maxTeamMembers+1)
	for i := range many {
		many[i] = "w"
	}
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"create without key", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.Create(ctx, CreateTeamParams{Name: "x"})
			return err
		}, "CreateTeamParams.Key"},
		{"create key too long", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.Create(ctx, CreateTeamParams{Key: strings.Repeat("k", 65), Name: "x"})
			return err
		}, "CreateTeamParams.Key"},
		{"create without name", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.Create(ctx, CreateTeamParams{Key: "k"})
			return err
		}, "CreateTeamParams.Name"},
		{"patch description too long", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.Patch(ctx, "team_1", PatchTeamParams{Description: Some(strings.Repeat("d", 513))})
			return err
		}, "PatchTeamParams.Description"},
		{"patch color too long", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.Patch(ctx, "team_1", PatchTeamParams{Color: Some(strings.Repeat("c", 33))})
			return err
		}, "PatchTeamParams.Color"},
		{"get without id", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.Get(ctx, "")
			return err
		}, "teamID"},
		{"remove dot segment", func(ctx context.Context, c *Client) error {
			return c.Teams.Remove(ctx, "..")
		}, "teamID"},
		{"members without id", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.Members(ctx, "")
			return err
		}, "teamID"},
		{"set members with an empty worker id", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.SetMembers(ctx, "team_1", []string{"w1", ""})
			return err
		}, "workerIDs[1]"},
		{"set members past 1000", func(ctx context.Context, c *Client) error {
			_, err := c.Teams.SetMembers(ctx, "team_1", many)
			return err
		}, "workerIDs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, http.StatusOK, nil, "{}")
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			err := tc.call(context.Background(), c)
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all(), "a refused call reached the server")
		})
	}
}
