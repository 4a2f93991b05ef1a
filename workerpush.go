package taskrouting

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"time"
)

// Push and voice, shared by the worker and supervisor planes. The server
// stores subscriptions and devices; whether it sends anything to them is
// the deployment's business (the mock server never does).

// PushConfig is the answer of GET /portal/push/config and
// GET /supervisor/push/config.
type PushConfig struct {
	Enabled bool `json:"enabled"`
	// PublicKey is the VAPID public key a browser subscribes with; "" when
	// push is off (the wire's null).
	PublicKey string `json:"publicKey,omitempty"`
}

// PushSubscriptionParams is a browser's push subscription, as
// PushManager.subscribe returns it. Auth is the subscription's secret, a
// Secret: it never appears in a printed or logged value or JSON.
type PushSubscriptionParams struct {
	Endpoint string
	P256dh   string // the browser's public key (keys.p256dh)
	Auth     Secret // the authentication secret (keys.auth)
}

// wireBody is the wire form {endpoint, keys: {p256dh, auth}} the client sends.
func (p PushSubscriptionParams) wireBody() any {
	type keys struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	}
	return struct {
		Endpoint string `json:"endpoint"`
		Keys     keys   `json:"keys"`
	}{p.Endpoint, keys{p.P256dh, p.Auth.Reveal()}}
}

// MarshalJSON writes the wire form with auth as [redacted], so a JSON log handler never
// shows the secret; the client itself sends wireBody.
func (p PushSubscriptionParams) MarshalJSON() ([]byte, error) {
	type keys struct {
		P256dh string `json:"p256dh"`
		Auth   Secret `json:"auth"`
	}
	return json.Marshal(struct {
		Endpoint string `json:"endpoint"`
		Keys     keys   `json:"keys"`
	}{p.Endpoint, keys{p.P256dh, p.Auth}})
}

func (p PushSubscriptionParams) validate() error {
	return firstError(
		checkLen("PushSubscriptionParams.Endpoint", p.Endpoint, 1, math.MaxInt),
		checkLen("PushSubscriptionParams.P256dh", p.P256dh, 1, math.MaxInt),
		checkLen("PushSubscriptionParams.Auth", p.Auth.Reveal(), 1, math.MaxInt),
	)
}

// String describes the subscription without its secret.
func (p PushSubscriptionParams) String() string {
	return fmt.Sprintf("{Endpoint:%q P256dh:%q Auth:[redacted]}", p.Endpoint, p.P256dh)
}

// GoString describes the subscription for %#v without its secret.
func (p PushSubscriptionParams) GoString() string {
	return "taskrouting.PushSubscriptionParams" + p.String()
}

// LogValue lets the subscription be logged with slog without its secret.
func (p PushSubscriptionParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("endpoint", p.Endpoint), slog.String("auth", "[redacted]"))
}

// Format prints the subscription without its secret, whatever the verb.
func (p PushSubscriptionParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

// WorkerPushSubscription is the answer of POST /portal/push/subscriptions.
type WorkerPushSubscription struct {
	Endpoint  string
	CreatedAt time.Time // wire createdAt, ISO-8601
}

// WorkerDevice is a native app's push registration (POST /portal/devices).
type WorkerDevice struct {
	Token     string    // the app's push token (e.g. an Expo token)
	Platform  string    // e.g. "ios", "android"
	CreatedAt time.Time // zero when the server does not say
}

// VoiceICE is the answer of GET /portal/voice/ice and
// GET /supervisor/voice/ice: the ICE servers for a WebRTC connection.
type VoiceICE struct {
	ICEServers []ICEServer
	// Raw is the iceServers JSON exactly as received, credentials included:
	// Raw.Reveal() hands it to a WebRTC stack unchanged.
	Raw Secret
}

// ICEServer is one STUN or TURN server, as RTCPeerConnection takes it.
// Credential is a Secret: it never appears in a printed or logged value or
// JSON; Reveal it for the WebRTC stack.
type ICEServer struct {
	URLs       []string // the wire's urls, a string or an array
	Username   string
	Credential Secret
}

// UnmarshalJSON accepts urls as one string or an array of them.
func (s *ICEServer) UnmarshalJSON(b []byte) error {
	var w struct {
		URLs       json.RawMessage `json:"urls"`
		Username   string          `json:"username"`
		Credential string          `json:"credential"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = ICEServer{Username: w.Username, Credential: NewSecret(w.Credential)}
	if t := bytes.TrimSpace(w.URLs); len(t) > 0 && t[0] == '"' {
		var one string
		if err := json.Unmarshal(t, &one); err != nil {
			return err
		}
		s.URLs = []string{one}
		return nil
	}
	if len(w.URLs) > 0 {
		return json.Unmarshal(w.URLs, &s.URLs)
	}
	return nil
}

// String describes the server without its credential.
func (s ICEServer) String() string {
	return fmt.Sprintf("{URLs:%q Username:%q Credential:[redacted]}", s.URLs, s.Username)
}

// GoString describes the server for %#v without its credential.
func (s ICEServer) GoString() string { return "taskrouting.ICEServer" + s.String() }

// LogValue lets the server be logged with slog without its credential.
func (s ICEServer) LogValue() slog.Value {
	return slog.GroupValue(slog.Any("urls", s.URLs), slog.String("username", s.Username), slog.String("credential", "[redacted]"))
}

// Format prints the server without its credential, whatever the verb.
func (s ICEServer) Format(f fmt.State, verb rune) { formatSafe(f, verb, s.String(), s.GoString()) }

func voiceICE(ctx context.Context, c *Client, path string, opts []RequestOption) (*VoiceICE, error) {
	var out struct {
		ICEServers json.RawMessage `json:"iceServers"`
	}
	if err := c.call(ctx, "GET", path, nil, nil, &out, opts); err != nil {
		return nil, err
	}
	v := &VoiceICE{Raw: NewSecret(string(out.ICEServers))}
	// The contract leaves the value open; a list is what WebRTC takes, and
	// anything else stays in Raw only.
	if t := bytes.TrimSpace(out.ICEServers); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &v.ICEServers); err != nil {
			return nil, fmt.Errorf("taskrouting: GET %s: decode iceServers: %w", path, err)
		}
	}
	return v, nil
}

func pushConfig(ctx context.Context, c *Client, path string, opts []RequestOption) (*PushConfig, error) {
	var out struct {
		Enabled   bool    `json:"enabled"`
		PublicKey *string `json:"publicKey"`
	}
	if err := c.call(ctx, "GET", path, nil, nil, &out, opts); err != nil {
		return nil, err
	}
	p := &PushConfig{Enabled: out.Enabled}
	if out.PublicKey != nil {
		p.PublicKey = *out.PublicKey
	}
	return p, nil
}

// VoiceICE returns the ICE servers for the signed-in worker's voice
// connection. A deployment without voice answers 404 voice_disabled
// (ErrVoiceDisabled).
//
// API: worker.voiceIce, GET /portal/voice/ice
func (w *WorkerClient) VoiceICE(ctx context.Context, opts ...RequestOption) (*VoiceICE, error) {
	return voiceICE(ctx, w.c, "/portal/voice/ice", opts)
}

// PushConfig reports whether web push is on and its VAPID public key. Read
// it before asking the browser for permission: Enabled false is a fact of
// the deployment, not an error.
//
// API: worker.pushConfig, GET /portal/push/config
func (w *WorkerClient) PushConfig(ctx context.Context, opts ...RequestOption) (*PushConfig, error) {
	return pushConfig(ctx, w.c, "/portal/push/config", opts)
}

// PushSubscribe registers a browser push subscription for the signed-in
// worker. Subscribing the same endpoint again replaces the keys.
//
// API: worker.pushSubscribe, POST /portal/push/subscriptions
func (w *WorkerClient) PushSubscribe(ctx context.Context, p PushSubscriptionParams, opts ...RequestOption) (*WorkerPushSubscription, error) {
	if err := w.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	var out struct {
		Endpoint  string   `json:"endpoint"`
		CreatedAt wireTime `json:"createdAt"`
	}
	if err := w.c.call(ctx, "POST", "/portal/push/subscriptions", nil, p, &out, opts); err != nil {
		return nil, err
	}
	return &WorkerPushSubscription{Endpoint: out.Endpoint, CreatedAt: out.CreatedAt.t}, nil
}

// PushUnsubscribe removes a browser push subscription by its endpoint
// alone (a browser has discarded the keys by the time it reports a change).
//
// API: worker.pushUnsubscribe, DELETE /portal/push/subscriptions
func (w *WorkerClient) PushUnsubscribe(ctx context.Context, endpoint string, opts ...RequestOption) error {
	if err := w.c.admit(checkLen("endpoint", endpoint, 1, math.MaxInt), opts); err != nil {
		return err
	}
	in := struct {
		Endpoint string `json:"endpoint"`
	}{endpoint}
	return w.c.call(ctx, "DELETE", "/portal/push/subscriptions", nil, in, nil, opts)
}

// RegisterDevice registers a native app's push token (an Expo token, say)
// for the signed-in worker; browsers use PushSubscribe instead.
//
// API: worker.registerDevice, POST /portal/devices
func (w *WorkerClient) RegisterDevice(ctx context.Context, token, platform string, opts ...RequestOption) (*WorkerDevice, error) {
	if err := w.c.admit(checkLen("token", token, 1, math.MaxInt), opts); err != nil {
		return nil, err
	}
	in := struct {
		Token    string `json:"token"`
		Platform string `json:"platform"`
	}{token, platform}
	var out struct {
		Token     string   `json:"token"`
		Platform  string   `json:"platform"`
		CreatedAt wireTime `json:"createdAt"`
	}
	if err := w.c.call(ctx, "POST", "/portal/devices", nil, in, &out, opts); err != nil {
		return nil, err
	}
	return &WorkerDevice{Token: out.Token, Platform: out.Platform, CreatedAt: out.CreatedAt.t}, nil
}

// UnregisterDevice removes a native app's push token.
//
// API: worker.unregisterDevice, DELETE /portal/devices
func (w *WorkerClient) UnregisterDevice(ctx context.Context, token string, opts ...RequestOption) error {
	if err := w.c.admit(checkLen("token", token, 1, math.MaxInt), opts); err != nil {
		return err
	}
	in := struct {
		Token string `json:"token"`
	}{token}
	return w.c.call(ctx, "DELETE", "/portal/devices", nil, in, nil, opts)
}
