package taskrouting

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notificationCases are the notification channel and sequence calls on the
// wire: the request each sends and how it decodes the platform's answer.
// Every request and answer is also held to api/openapi.json.
var notificationCases = []struct {
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
	{"channels list", "notifications.channels.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Channels.List(ctx)
	}, "GET", "/notification-channels", "", 200,
		`{"channels":[{"id":"ch_1","type":"webhook","target":"https://hooks.example/tr","events":["task.matched"],"disabled":false,"createdAt":"2025-11-21T04:40:00.000Z"}]}`,
		[]NotificationChannel{{ID: "ch_1", Type: "webhook", Target: "https://hooks.example/tr", Events: []string{"task.matched"}, CreatedAt: t0}}},
	{"channels create sends the secret", "notifications.channels.create", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/tr",
			Events: []string{"task.matched", "task.completed"}, Secret: NewSecret("whsec_wire")})
	}, "POST", "/notification-channels",
		`{"type":"webhook","target":"https://hooks.example/tr","events":["task.matched","task.completed"],"secret":"whsec_wire"}`, 201,
		`{"id":"ch_1","type":"webhook","target":"https://hooks.example/tr","events":["task.matched","task.completed"],"disabled":false,"createdAt":"2025-11-21T04:40:00.000Z"}`,
		&NotificationChannel{ID: "ch_1", Type: "webhook", Target: "https://hooks.example/tr", Events: []string{"task.matched", "task.completed"}, CreatedAt: t0}},
	{"channels get", "notifications.channels.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Channels.Get(ctx, "ch 1")
	}, "GET", "/notification-channels/ch%201", "", 200,
		`{"id":"ch 1","type":"websocket","target":"ops-room"}`,
		&NotificationChannel{ID: "ch 1", Type: "websocket", Target: "ops-room"}},
	{"channels update disables only", "notifications.channels.update", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Channels.Update(ctx, "ch_1", UpdateNotificationChannelParams{Disabled: Ptr(true)})
	}, "PATCH", "/notification-channels/ch_1", `{"disabled":true}`, 200,
		`{"id":"ch_1","type":"webhook","target":"https://hooks.example/tr","events":["task.matched"],"disabled":true,"createdAt":"2025-11-21T04:40:00.000Z"}`,
		&NotificationChannel{ID: "ch_1", Type: "webhook", Target: "https://hooks.example/tr", Events: []string{"task.matched"}, Disabled: true, CreatedAt: t0}},
	{"channels update rotates only the secret", "notifications.channels.update", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Channels.Update(ctx, "ch_1", UpdateNotificationChannelParams{Secret: NewSecret("whsec_new")})
	}, "PATCH", "/notification-channels/ch_1", `{"secret":"whsec_new"}`, 200,
		`{"id":"ch_1","type":"webhook","target":"https://hooks.example/tr"}`,
		&NotificationChannel{ID: "ch_1", Type: "webhook", Target: "https://hooks.example/tr"}},
	{"channels remove", "notifications.channels.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Notifications.Channels.Remove(ctx, "ch_1")
	}, "DELETE", "/notification-channels/ch_1", "", 204, "", nil},
	{"sequences list", "notifications.sequences.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Sequences.List(ctx)
	}, "GET", "/notification-sequences", "", 200,
		`{"sequences":[{"id":"seq_1","name":"Escalate","enabled":true,"steps":[{"trigger":"matched","eventType":"task.expiring","offsetMs":300000},
		{"trigger":"expired","eventType":"task.expired","offsetMs":null}],"filterTags":["billing"],
		"createdAt":"2025-11-21T04:40:00.000Z","updatedAt":"2025-11-21T04:41:00.000Z"}]}`,
		[]NotificationSequence{{ID: "seq_1", Name: "Escalate", Enabled: true, FilterTags: []string{"billing"},
			Steps:     []NotificationStep{{Trigger: "matched", EventType: "task.expiring", Offset: 5 * time.Minute}, {Trigger: "expired", EventType: "task.expired"}},
			CreatedAt: t0, UpdatedAt: t0.Add(time.Minute)}}},
	{"sequences create sends only what is set", "notifications.sequences.create", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Sequences.Create(ctx, CreateNotificationSequenceParams{Name: "Escalate",
			Steps: []NotificationStep{{Trigger: "matched", EventType: "task.expiring", Offset: 5 * time.Minute}}, FilterTags: []string{"billing"}})
	}, "POST", "/notification-sequences",
		`{"name":"Escalate","steps":[{"trigger":"matched","offsetMs":300000,"eventType":"task.expiring"}],"filterTags":["billing"]}`, 201,
		`{"id":"seq_1","name":"Escalate","enabled":true,"steps":[{"trigger":"matched","eventType":"task.expiring","offsetMs":300000}],"filterTags":["billing"],
		"createdAt":"2025-11-21T04:40:00.000Z","updatedAt":"2025-11-21T04:40:00.000Z"}`,
		&NotificationSequence{ID: "seq_1", Name: "Escalate", Enabled: true, FilterTags: []string{"billing"},
			Steps: []NotificationStep{{Trigger: "matched", EventType: "task.expiring", Offset: 5 * time.Minute}}, CreatedAt: t0, UpdatedAt: t0}},
	{"sequences get", "notifications.sequences.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Sequences.Get(ctx, "seq/1")
	}, "GET", "/notification-sequences/seq%2F1", "", 200,
		`{"id":"seq/1","name":"n","enabled":false,"steps":[{"trigger":"completed","eventType":"task.done"}]}`,
		&NotificationSequence{ID: "seq/1", Name: "n", Steps: []NotificationStep{{Trigger: "completed", EventType: "task.done"}}}},
	{"sequences update sends only enabled", "notifications.sequences.update", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Sequences.Update(ctx, "seq_1", UpdateNotificationSequenceParams{Enabled: Ptr(false)})
	}, "PATCH", "/notification-sequences/seq_1", `{"enabled":false}`, 200,
		`{"id":"seq_1","name":"n","enabled":false,"steps":[{"trigger":"matched","eventType":"e"}],"filterTags":[]}`,
		&NotificationSequence{ID: "seq_1", Name: "n", Steps: []NotificationStep{{Trigger: "matched", EventType: "e"}}, FilterTags: []string{}}},
	{"sequences update clears the filter", "notifications.sequences.update", func(ctx context.Context, c *Client) (any, error) {
		return c.Notifications.Sequences.Update(ctx, "seq_1", UpdateNotificationSequenceParams{FilterTags: []string{}})
	}, "PATCH", "/notification-sequences/seq_1", `{"filterTags":[]}`, 200,
		`{"id":"seq_1","name":"n","enabled":true,"steps":[{"trigger":"matched","eventType":"e"}],"filterTags":[]}`,
		&NotificationSequence{ID: "seq_1", Name: "n", Enabled: true, Steps: []NotificationStep{{Trigger: "matched", EventType: "e"}}, FilterTags: []string{}}},
	{"sequences remove", "notifications.sequences.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Notifications.Sequences.Remove(ctx, "seq_1")
	}, "DELETE", "/notification-sequences/seq_1", "", 204, "", nil},
}

func TestNotificationsWire(t *testing.T) {
	for _, tc := range notificationCases {
		runWireCase(t, wireCase{tc.name, tc.op, tc.call, tc.wantMethod, tc.wantPath, "", tc.wantBody, tc.status, tc.answer, tc.want})
	}
}

// TestNotificationsRefusedBeforeSending checks that input the platform's
// schemas would refuse is a *ParamError naming the field, and nothing
// reaches the server.
func TestNotificationsRefusedBeforeSending(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	okSteps := []NotificationStep{{Trigger: "matched", EventType: "e"}}
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"channel without type", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Target: "t", Events: []string{"e"}})
			return err
		}, "CreateNotificationChannelParams.Type"},
		{"channel of unknown type", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Type: "email", Target: "t", Events: []string{"e"}})
			return err
		}, "CreateNotificationChannelParams.Type"},
		{"channel target too long", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Type: "webhook", Target: long(2049), Events: []string{"e"}})
			return err
		}, "CreateNotificationChannelParams.Target"},
		{"channel without events", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Type: "webhook", Target: "t"})
			return err
		}, "CreateNotificationChannelParams.Events"},
		{"channel with 65 events", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Type: "webhook", Target: "t", Events: make([]string, 65)})
			return err
		}, "CreateNotificationChannelParams.Events"},
		{"channel secret too long", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Type: "webhook", Target: "t", Events: []string{"e"}, Secret: NewSecret(long(513))})
			return err
		}, "CreateNotificationChannelParams.Secret"},
		{"channel update with empty events", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Update(ctx, "ch_1", UpdateNotificationChannelParams{Events: []string{}})
			return err
		}, "UpdateNotificationChannelParams.Events"},
		{"channel update without id", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Update(ctx, "", UpdateNotificationChannelParams{})
			return err
		}, "channelID"},
		{"channel get dot segment", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Channels.Get(ctx, "..")
			return err
		}, "channelID"},
		{"sequence without name", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Sequences.Create(ctx, CreateNotificationSequenceParams{Steps: okSteps})
			return err
		}, "CreateNotificationSequenceParams.Name"},
		{"sequence without steps", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Sequences.Create(ctx, CreateNotificationSequenceParams{Name: "n"})
			return err
		}, "CreateNotificationSequenceParams.Steps"},
		{"sequence with 51 steps", func(ctx context.Context, c *Client) error {
			steps := make([]NotificationStep, 51)
			for i := range steps {
				steps[i] = okSteps[0]
			}
			_, err := c.Notifications.Sequences.Create(ctx, CreateNotificationSequenceParams{Name: "n", Steps: steps})
			return err
		}, "CreateNotificationSequenceParams.Steps"},
		{"step with unknown trigger", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Sequences.Create(ctx, CreateNotificationSequenceParams{Name: "n",
				Steps: []NotificationStep{okSteps[0], {Trigger: "created", EventType: "e"}}})
			return err
		}, "CreateNotificationSequenceParams.Steps[1].Trigger"},
		{"step without event type", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Sequences.Create(ctx, CreateNotificationSequenceParams{Name: "n", Steps: []NotificationStep{{Trigger: "matched"}}})
			return err
		}, "CreateNotificationSequenceParams.Steps[0].EventType"},
		{"sequence filter tag too long", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Sequences.Create(ctx, CreateNotificationSequenceParams{Name: "n", Steps: okSteps, FilterTags: []string{long(65)}})
			return err
		}, "CreateNotificationSequenceParams.FilterTags[0]"},
		{"sequence update name too long", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Sequences.Update(ctx, "seq_1", UpdateNotificationSequenceParams{Name: long(201)})
			return err
		}, "UpdateNotificationSequenceParams.Name"},
		{"sequence update with empty steps", func(ctx context.Context, c *Client) error {
			_, err := c.Notifications.Sequences.Update(ctx, "seq_1", UpdateNotificationSequenceParams{Steps: []NotificationStep{}})
			return err
		}, "UpdateNotificationSequenceParams.Steps"},
		{"sequence remove without id", func(ctx context.Context, c *Client) error {
			return c.Notifications.Sequences.Remove(ctx, "")
		}, "sequenceID"},
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

// TestChannelSecretNeverPrinted: the channel parameters print no secret
// under any fmt verb, and an error the server makes of a body echoing the
// secret comes back with it redacted.
func TestChannelSecretNeverPrinted(t *testing.T) {
	const secret = "whsec_do_not_print"
	create := CreateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/tr", Events: []string{"e"}, Secret: NewSecret(secret)}
	update := UpdateNotificationChannelParams{Secret: NewSecret(secret)}
	values := map[string]any{"create": create, "*create": &create, "update": update, "*update": &update,
		"struct with params field": struct {
			P CreateNotificationChannelParams
		}{create}}
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%10.3s"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, secret, "%s with %s", name, verb)
			assert.NotContains(t, out, fmt.Sprintf("%x", secret), "%s with %s", name, verb)
		}
	}
	assert.Contains(t, fmt.Sprint(create), "hooks.example", "the safe fields still print")
	assert.Contains(t, fmt.Sprint(create), "[redacted]")

	srv, _ := serveOnce(t, http.StatusBadRequest, map[string]string{"Content-Type": "application/json"},
		`{"error":{"code":"validation_failed","message":"secret `+secret+` is not allowed"}}`)
	c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
	_, err := c.Notifications.Channels.Create(context.Background(), create)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.NotContains(t, err.Error(), secret)
	assert.NotContains(t, fmt.Sprintf("%+v", err), secret)
}
