package taskrouting

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const skillAnswer = `{"id":"skl_1","key":"refunds","name":"Refunds","description":"Handles refund requests","createdAt":"2025-11-21T04:40:00.000Z"}`

var refundsSkill = &Skill{ID: "skl_1", Key: "refunds", Name: "Refunds", Description: "Handles refund requests", CreatedAt: t0}

// skillCases are the skill catalogue calls on the wire: the request each
// sends and how it decodes the platform's answer. Every request and answer
// is also held to api/openapi.json.
var skillCases = []struct {
	name       string
	op         string
	call       func(ctx context.Context, c *Client) (any, error)
	wantMethod string
	wantPath   string
	wantQuery  string
	wantBody   string // "" for none
	status     int
	answer     string
	want       any
}{
	{"create", "skills.create", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Create(ctx, CreateSkillParams{Key: "refunds", Name: "Refunds", Description: "Handles refund requests"})
	}, "POST", "/skills", "", `{"key":"refunds","name":"Refunds","description":"Handles refund requests"}`, 201,
		skillAnswer, refundsSkill},
	{"create without description omits it", "skills.create", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Create(ctx, CreateSkillParams{Key: "refunds", Name: "Refunds"})
	}, "POST", "/skills", "", `{"key":"refunds","name":"Refunds"}`, 201,
		`{"id":"skl_1","key":"refunds","name":"Refunds","description":null}`,
		&Skill{ID: "skl_1", Key: "refunds", Name: "Refunds"}},
	{"list filters by query and limit", "skills.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.List(ctx, ListSkillsParams{Query: "ref", Limit: 10})
	}, "GET", "/skills", "limit=10&q=ref", "", 200, `{"skills":[` + skillAnswer + `]}`, []Skill{*refundsSkill}},
	{"list of everything sends no filters", "skills.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.List(ctx, ListSkillsParams{})
	}, "GET", "/skills", "", "", 200, `{"skills":[]}`, []Skill{}},
	{"patch renames and keeps the key", "skills.patch", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Patch(ctx, "skl_1", PatchSkillParams{Name: "Refunds & credits"})
	}, "PATCH", "/skills/skl_1", "", `{"name":"Refunds & credits"}`, 200,
		strings.Replace(skillAnswer, `"Refunds"`, `"Refunds & credits"`, 1),
		&Skill{ID: "skl_1", Key: "refunds", Name: "Refunds & credits", Description: "Handles refund requests", CreatedAt: t0}},
	{"patch clears the description with null", "skills.patch", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Patch(ctx, "skl_1", PatchSkillParams{ClearDescription: true})
	}, "PATCH", "/skills/skl_1", "", `{"description":null}`, 200,
		`{"id":"skl_1","key":"refunds","name":"Refunds","description":null,"createdAt":"2025-11-21T04:40:00.000Z"}`,
		&Skill{ID: "skl_1", Key: "refunds", Name: "Refunds", CreatedAt: t0}},
	{"get", "skills.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Get(ctx, "skl_1")
	}, "GET", "/skills/skl_1", "", "", 200, skillAnswer, refundsSkill},
	{"remove", "skills.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Skills.Remove(ctx, "skl_1")
	}, "DELETE", "/skills/skl_1", "", "", 204, "", nil},
	{"suggest joins the selection with commas", "skills.suggest", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Suggest(ctx, SuggestSkillsParams{Selected: []string{"billing", "english"}, Limit: 5})
	}, "GET", "/skills/suggest", "limit=5&selected=billing%2Cenglish", "", 200, `{"skills":[` + skillAnswer + `]}`, []Skill{*refundsSkill}},
	{"suggest with nothing selected omits the parameter", "skills.suggest", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Suggest(ctx, SuggestSkillsParams{Selected: []string{}})
	}, "GET", "/skills/suggest", "", "", 200, `{"skills":[]}`, []Skill{}},
	{"expiring sends the window and the day", "skills.expiring", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Expiring(ctx, ExpiringSkillsParams{WithinDays: Ptr(14), AsOf: "2026-07-24"})
	}, "GET", "/skills/expiring", "asOf=2026-07-24&withinDays=14", "", 200,
		`{"asOf":"2026-07-24","skills":[{"workerId":"agent_1","label":"Ana","skillId":"skl_1","key":"refunds","name":"Refunds","validUntil":"2026-07-20","expired":true},` +
			`{"workerId":"agent_2","label":"agent_2","skillId":"skl_1","key":"refunds","name":"Refunds","validUntil":"2026-08-01","expired":false}]}`,
		&ExpiringSkills{AsOf: "2026-07-24", Skills: []ExpiringSkill{
			{WorkerID: "agent_1", Label: "Ana", SkillID: "skl_1", Key: "refunds", Name: "Refunds", ValidUntil: "2026-07-20", Expired: true},
			{WorkerID: "agent_2", Label: "agent_2", SkillID: "skl_1", Key: "refunds", Name: "Refunds", ValidUntil: "2026-08-01"}}}},
	{"expiring with zero days sends 0 and no day", "skills.expiring", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Expiring(ctx, ExpiringSkillsParams{WithinDays: Ptr(0)})
	}, "GET", "/skills/expiring", "withinDays=0", "", 200, `{"asOf":"2026-07-24","skills":[]}`,
		&ExpiringSkills{AsOf: "2026-07-24", Skills: []ExpiringSkill{}}},
	{"expiring with defaults sends nothing", "skills.expiring", func(ctx context.Context, c *Client) (any, error) {
		return c.Skills.Expiring(ctx, ExpiringSkillsParams{})
	}, "GET", "/skills/expiring", "", "", 200, `{"asOf":"2026-07-24","skills":[]}`,
		&ExpiringSkills{AsOf: "2026-07-24", Skills: []ExpiringSkill{}}},
}

func TestSkillsWire(t *testing.T) {
	for _, tc := range skillCases {
		runWireCase(t, wireCase{tc.name, tc.op, tc.call, tc.wantMethod, tc.wantPath, tc.wantQuery, tc.wantBody, tc.status, tc.answer, tc.want})
	}
}

// TestSkillsRefusedBeforeSending checks that input the platform would
// refuse is a *ParamError and nothing reaches the server.
func TestSkillsRefusedBeforeSending(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	desc := "d"
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"create without key", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Create(ctx, CreateSkillParams{Name: "n"})
			return err
		}, "CreateSkillParams.Key"},
		{"create key too long", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Create(ctx, CreateSkillParams{Key: long(65), Name: "n"})
			return err
		}, "CreateSkillParams.Key"},
		{"create without name", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Create(ctx, CreateSkillParams{Key: "k"})
			return err
		}, "CreateSkillParams.Name"},
		{"create description too long", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Create(ctx, CreateSkillParams{Key: "k", Name: "n", Description: long(513)})
			return err
		}, "CreateSkillParams.Description"},
		{"expiring day not a date", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Expiring(ctx, ExpiringSkillsParams{AsOf: "24/07/2026"})
			return err
		}, "ExpiringSkillsParams.AsOf"},
		{"expiring negative window", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Expiring(ctx, ExpiringSkillsParams{WithinDays: Ptr(-1)})
			return err
		}, "ExpiringSkillsParams.WithinDays"},
		{"list query too long", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.List(ctx, ListSkillsParams{Query: long(129)})
			return err
		}, "ListSkillsParams.Query"},
		{"list limit past 100", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.List(ctx, ListSkillsParams{Limit: 101})
			return err
		}, "ListSkillsParams.Limit"},
		{"patch name too long", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Patch(ctx, "skl_1", PatchSkillParams{Name: long(129)})
			return err
		}, "PatchSkillParams.Name"},
		{"patch sets and clears the description", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Patch(ctx, "skl_1", PatchSkillParams{Description: &desc, ClearDescription: true})
			return err
		}, "PatchSkillParams.ClearDescription"},
		{"get without id", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Get(ctx, "")
			return err
		}, "id"},
		{"remove dot segment", func(ctx context.Context, c *Client) error {
			return c.Skills.Remove(ctx, "..")
		}, "id"},
		{"suggest id with a comma", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Suggest(ctx, SuggestSkillsParams{Selected: []string{"a,b"}})
			return err
		}, "SuggestSkillsParams.Selected[0]"},
		{"suggest limit past 50", func(ctx context.Context, c *Client) error {
			_, err := c.Skills.Suggest(ctx, SuggestSkillsParams{Limit: 51})
			return err
		}, "SuggestSkillsParams.Limit"},
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
