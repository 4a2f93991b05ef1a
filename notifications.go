package taskrouting

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// NotificationsService groups the notification calls: channels say where
// notifications go, sequences say when. Reach it as Client.Notifications.
type NotificationsService struct {
	Channels  *NotificationChannelsService
	Sequences *NotificationSequencesService
}

// NotificationChannel is where the platform delivers notifications: a
// webhook URL or a websocket target, subscribed to event types
// (NotificationChannel in api/openapi.json). The channel's signing secret
// is write-only: no answer carries it, so this type has no field for it.
type NotificationChannel struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"` // "webhook" or "websocket"
	Target    string    `json:"target"`
	Events    []string  `json:"events"`
	Disabled  bool      `json:"disabled"`
	CreatedAt time.Time `json:"-"` // wire createdAt, ISO-8601; zero when absent
}

// UnmarshalJSON decodes the wire form, whose createdAt is an ISO-8601 string.
func (ch *NotificationChannel) UnmarshalJSON(b []byte) error {
	type plain NotificationChannel
	w := struct {
		*plain
		CreatedAt wireTime `json:"createdAt"`
	}{plain: (*plain)(ch)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	ch.CreatedAt = w.CreatedAt.t
	return nil
}

// CreateNotificationChannelParams is a new channel. Secret, when set, is
// the key the platform signs deliveries with (NewSecret(key)); it is sent
// once and never printed.
type CreateNotificationChannelParams struct {
	Type   string   `json:"type"`            // required: "webhook" or "websocket"
	Target string   `json:"target"`          // required, at most 2048 characters
	Events []string `json:"events"`          // 1-64 event types, each 1-128 characters
	Secret Secret   `json:"secret,omitzero"` // at most 512 characters
}

// validate holds the fields to the platform's limits (notifications.channels.create).
func (p CreateNotificationChannelParams) validate() error {
	const in = "CreateNotificationChannelParams"
	typeErr := checkOneOf(in+".Type", p.Type, channelTypes...)
	if p.Type == "" {
		typeErr = &ParamError{Param: in + ".Type", Problem: "must not be empty"}
	}
	return firstError(
		typeErr,
		checkLen(in+".Target", p.Target, 1, 2048),
		checkStrings(in+".Events", p.Events, 1, 64, 1, 128),
		checkLen(in+".Secret", p.Secret.Reveal(), 0, 512),
	)
}

// UpdateNotificationChannelParams changes a channel; zero fields are not
// sent and stay as they are. Setting only Secret rotates the signing
// secret and touches nothing else.
type UpdateNotificationChannelParams struct {
	Type     string   `json:"type,omitempty"`   // "webhook" or "websocket"
	Target   string   `json:"target,omitempty"` // at most 2048 characters
	Events   []string `json:"events,omitempty"` // 1-64 event types when set
	Secret   Secret   `json:"secret,omitzero"`  // at most 512 characters
	Disabled *bool    `json:"disabled,omitempty"`
}

// validate holds the fields to the platform's limits (notifications.channels.update).
func (p UpdateNotificationChannelParams) validate() error {
	const in = "UpdateNotificationChannelParams"
	var eventsErr error
	if p.Events != nil {
		eventsErr = checkStrings(in+".Events", p.Events, 1, 64, 1, 128)
	}
	return firstError(
		checkOneOf(in+".Type", p.Type, channelTypes...),
		checkLen(in+".Target", p.Target, 0, 2048),
		eventsErr,
		checkLen(in+".Secret", p.Secret.Reveal(), 0, 512),
	)
}

var channelTypes = []string{"webhook", "websocket"}

// The channel parameters hold a signing secret, so they print like the
// other secret-holding types (secretfmt.go): the secret shows as
// [redacted] under every fmt verb.

func (p CreateNotificationChannelParams) String() string {
	return "taskrouting.CreateNotificationChannelParams{Type: " + strconv.Quote(p.Type) +
		", Target: " + strconv.Quote(p.Target) + ", Events: " + strconv.Itoa(len(p.Events)) +
		" types, Secret: " + redactedUnlessEmpty(p.Secret.Reveal()) + "}"
}

func (p CreateNotificationChannelParams) GoString() string { return p.String() }

// Format prints the parameters without the secret, whatever the verb.
func (p CreateNotificationChannelParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

func (p UpdateNotificationChannelParams) String() string {
	disabled := "unchanged"
	if p.Disabled != nil {
		disabled = strconv.FormatBool(*p.Disabled)
	}
	return "taskrouting.UpdateNotificationChannelParams{Type: " + strconv.Quote(p.Type) +
		", Target: " + strconv.Quote(p.Target) + ", Events: " + strconv.Itoa(len(p.Events)) +
		" types, Secret: " + redactedUnlessEmpty(p.Secret.Reveal()) + ", Disabled: " + disabled + "}"
}

func (p UpdateNotificationChannelParams) GoString() string { return p.String() }

// Format prints the parameters without the secret, whatever the verb.
func (p UpdateNotificationChannelParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

// redactedUnlessEmpty says whether a secret is set without showing it.
func redactedUnlessEmpty(secret string) string {
	if secret == "" {
		return `""`
	}
	return "[redacted]"
}

// NotificationChannelsService manages where notifications are delivered
// (notifications.channels.*). Reach it as Client.Notifications.Channels.
type NotificationChannelsService struct{ c *Client }

// List returns the workspace's channels.
//
// API: notifications.channels.list, GET /notification-channels
func (s *NotificationChannelsService) List(ctx context.Context, opts ...RequestOption) ([]NotificationChannel, error) {
	var out struct {
		Channels []NotificationChannel `json:"channels"`
	}
	if err := s.c.call(ctx, "GET", "/notification-channels", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Channels, nil
}

// Create adds a channel and returns it as stored, without its secret.
//
// API: notifications.channels.create, POST /notification-channels
func (s *NotificationChannelsService) Create(ctx context.Context, p CreateNotificationChannelParams, opts ...RequestOption) (*NotificationChannel, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(NotificationChannel)
	opts = withOwn(opts, redacting(p.Secret.Reveal())) // a server echoing the secret in an error
	if err := s.c.call(ctx, "POST", "/notification-channels", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns one channel.
//
// API: notifications.channels.get, GET /notification-channels/{id}
func (s *NotificationChannelsService) Get(ctx context.Context, channelID string, opts ...RequestOption) (*NotificationChannel, error) {
	if err := s.c.admit(checkID("channelID", channelID), opts); err != nil {
		return nil, err
	}
	out := new(NotificationChannel)
	if err := s.c.call(ctx, "GET", escapePath("/notification-channels/", channelID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Update changes the fields p sets and returns the channel as stored.
//
// API: notifications.channels.update, PATCH /notification-channels/{id}
func (s *NotificationChannelsService) Update(ctx context.Context, channelID string, p UpdateNotificationChannelParams, opts ...RequestOption) (*NotificationChannel, error) {
	if err := s.c.admit(firstError(checkID("channelID", channelID), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(NotificationChannel)
	opts = withOwn(opts, redacting(p.Secret.Reveal()))
	if err := s.c.call(ctx, "PATCH", escapePath("/notification-channels/", channelID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove deletes a channel.
//
// API: notifications.channels.remove, DELETE /notification-channels/{id}
func (s *NotificationChannelsService) Remove(ctx context.Context, channelID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("channelID", channelID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/notification-channels/", channelID), nil, nil, nil, opts)
}
