package taskrouting

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// The types that hold a secret print it as [redacted] through fmt (secretfmt.go) and slog
// (LogValue). A log handler that encodes JSON reaches a value nested in a slice or a map
// through encoding/json, not LogValue, so each also has a MarshalJSON that redacts. The
// request body is built from wireBody instead (Client.call), the one place the secret is
// written out. TestSecretTypesNeverShowTheirSecret enumerates these types.

// wireForm is a request body whose MarshalJSON redacts: the client sends wireBody.
type wireForm interface{ wireBody() any }

// masked is a secret as JSON shows it: "" when unset, else [redacted].
func masked(secret string) string {
	if secret == "" {
		return ""
	}
	return redactedMark
}

type (
	workerLoginWire    WorkerLoginParams
	setIdentityWire    SetIdentityParams
	updateIdentityWire UpdateIdentityParams
	joinWire           JoinParams
	acceptInviteWire   AcceptInviteParams
	changePINWire      ChangePINParams
	createChannelWire  CreateNotificationChannelParams
	updateChannelWire  UpdateNotificationChannelParams
)

func (p WorkerLoginParams) wireBody() any { return workerLoginWire(p) }

// MarshalJSON writes the parameters with the PIN as [redacted].
func (p WorkerLoginParams) MarshalJSON() ([]byte, error) {
	p.PIN = masked(p.PIN)
	return json.Marshal(workerLoginWire(p))
}

func (p SetIdentityParams) wireBody() any { return setIdentityWire(p) }

// MarshalJSON writes the parameters with the PIN as [redacted].
func (p SetIdentityParams) MarshalJSON() ([]byte, error) {
	p.PIN = masked(p.PIN)
	return json.Marshal(setIdentityWire(p))
}

func (p UpdateIdentityParams) wireBody() any { return updateIdentityWire(p) }

// MarshalJSON writes the parameters with the PIN as [redacted].
func (p UpdateIdentityParams) MarshalJSON() ([]byte, error) {
	p.PIN = masked(p.PIN)
	return json.Marshal(updateIdentityWire(p))
}

func (p JoinParams) wireBody() any { return joinWire(p) }

// MarshalJSON writes the parameters with the token and the PIN as [redacted].
func (p JoinParams) MarshalJSON() ([]byte, error) {
	p.Token, p.PIN = masked(p.Token), masked(p.PIN)
	return json.Marshal(joinWire(p))
}

func (p AcceptInviteParams) wireBody() any { return acceptInviteWire(p) }

// MarshalJSON writes the parameters with the token and the PIN as [redacted].
func (p AcceptInviteParams) MarshalJSON() ([]byte, error) {
	p.Token, p.PIN = masked(p.Token), masked(p.PIN)
	return json.Marshal(acceptInviteWire(p))
}

func (p ChangePINParams) wireBody() any { return changePINWire(p) }

// MarshalJSON writes the parameters with both PINs as [redacted].
func (p ChangePINParams) MarshalJSON() ([]byte, error) {
	p.CurrentPIN, p.NewPIN = masked(p.CurrentPIN), masked(p.NewPIN)
	return json.Marshal(changePINWire(p))
}

func (p CreateNotificationChannelParams) wireBody() any { return createChannelWire(p) }

// MarshalJSON writes the parameters with the signing secret as [redacted].
func (p CreateNotificationChannelParams) MarshalJSON() ([]byte, error) {
	p.Secret = masked(p.Secret)
	return json.Marshal(createChannelWire(p))
}

// LogValue lets the parameters be logged with slog without the signing secret.
func (p CreateNotificationChannelParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("type", p.Type), slog.String("target", p.Target),
		slog.Any("events", p.Events), slog.String("secret", masked(p.Secret)))
}

func (p UpdateNotificationChannelParams) wireBody() any { return updateChannelWire(p) }

// MarshalJSON writes the parameters with the signing secret as [redacted].
func (p UpdateNotificationChannelParams) MarshalJSON() ([]byte, error) {
	p.Secret = masked(p.Secret)
	return json.Marshal(updateChannelWire(p))
}

// LogValue lets the parameters be logged with slog without the signing secret.
func (p UpdateNotificationChannelParams) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("type", p.Type), slog.String("target", p.Target),
		slog.Any("events", p.Events), slog.String("secret", masked(p.Secret))}
	if p.Disabled != nil {
		attrs = append(attrs, slog.Bool("disabled", *p.Disabled))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes the server with its credential as [redacted] (it is only ever read
// from the platform; VoiceICE.Raw carries it to a WebRTC stack).
func (s ICEServer) MarshalJSON() ([]byte, error) {
	s.Credential = masked(s.Credential)
	return json.Marshal(struct {
		URLs       []string `json:"urls"`
		Username   string   `json:"username,omitempty"`
		Credential string   `json:"credential,omitempty"`
	}{s.URLs, s.Username, s.Credential})
}

// VoiceICE's Raw holds the credentials exactly as received, for a WebRTC stack: it is left
// out of every printed, logged or JSON form.

// String describes the ICE servers without their credentials.
func (v VoiceICE) String() string { return fmt.Sprintf("{ICEServers:%v}", v.ICEServers) }

// GoString describes the ICE servers for %#v without their credentials.
func (v VoiceICE) GoString() string { return "taskrouting.VoiceICE" + v.String() }

// LogValue lets the answer be logged with slog without the credentials.
func (v VoiceICE) LogValue() slog.Value { return slog.Any("iceServers", v.ICEServers).Value }

// Format prints the answer without the credentials, whatever the verb.
func (v VoiceICE) Format(f fmt.State, verb rune) { formatSafe(f, verb, v.String(), v.GoString()) }

// MarshalJSON writes the ICE servers with their credentials as [redacted], without Raw.
func (v VoiceICE) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ICEServers []ICEServer `json:"iceServers"`
	}{v.ICEServers})
}

type (
	inviteJSON          Invite
	createdJoinLinkJSON CreatedJoinLink
)

// MarshalJSON writes the invite with its URL (which carries the invite's token) as
// [redacted]; read InviteURL to hand the link over.
func (i Invite) MarshalJSON() ([]byte, error) {
	i.InviteURL = masked(i.InviteURL)
	return json.Marshal(inviteJSON(i))
}

// MarshalJSON writes the link with its URL (which carries the join token) as [redacted];
// read JoinURL to hand the link over.
func (l CreatedJoinLink) MarshalJSON() ([]byte, error) {
	l.JoinURL = masked(l.JoinURL)
	return json.Marshal(createdJoinLinkJSON(l))
}
