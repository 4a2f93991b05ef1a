package taskrouting

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
)

// The types that hold a secret keep it in a Secret, which prints as [redacted] through fmt,
// slog and encoding/json, also where fmt reaches it by reflection (secret.go). A request
// body is built from wireBody instead (Client.call): the one place a secret is revealed and
// written out. TestSecretTypesNeverShowTheirSecret enumerates these types.

// wireForm is a request body whose JSON form redacts: the client sends wireBody.
type wireForm interface{ wireBody() any }

// masked is a secret as JSON shows it: "" when unset, else [redacted].
func masked(secret string) string {
	if secret == "" {
		return ""
	}
	return redactedMark
}

func (p WorkerLoginParams) wireBody() any {
	return struct {
		WorkspaceID string `json:"workspaceId"`
		WorkerID    string `json:"workerId"`
		PIN         string `json:"pin"`
	}{p.WorkspaceID, p.WorkerID, p.PIN.Reveal()}
}

func (p SetIdentityParams) wireBody() any {
	return struct {
		Label string `json:"label"`
		PIN   string `json:"pin"`
		Email string `json:"email,omitempty"`
	}{p.Label, p.PIN.Reveal(), p.Email}
}

func (p UpdateIdentityParams) wireBody() any {
	return struct {
		Label  string           `json:"label,omitempty"`
		Email  Nullable[string] `json:"email,omitzero"`
		PIN    string           `json:"pin,omitempty"`
		Status string           `json:"status,omitempty"`
	}{p.Label, p.Email, p.PIN.Reveal(), p.Status}
}

func (p JoinParams) wireBody() any {
	return struct {
		Token string `json:"token"`
		Name  string `json:"name"`
		PIN   string `json:"pin"`
		Email string `json:"email,omitempty"`
	}{p.Token.Reveal(), p.Name, p.PIN.Reveal(), p.Email}
}

func (p AcceptInviteParams) wireBody() any {
	return struct {
		Token string `json:"token"`
		PIN   string `json:"pin"`
	}{p.Token.Reveal(), p.PIN.Reveal()}
}

func (p ChangePINParams) wireBody() any {
	return struct {
		CurrentPIN string `json:"currentPin"`
		NewPIN     string `json:"newPin"`
	}{p.CurrentPIN.Reveal(), p.NewPIN.Reveal()}
}

func (p CreateNotificationChannelParams) wireBody() any {
	return struct {
		Type   string   `json:"type"`
		Target string   `json:"target"`
		Events []string `json:"events"`
		Secret string   `json:"secret,omitempty"`
	}{p.Type, p.Target, p.Events, p.Secret.Reveal()}
}

// LogValue lets the parameters be logged with slog without the signing secret.
func (p CreateNotificationChannelParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("type", p.Type), slog.String("target", p.Target),
		slog.Any("events", p.Events), slog.String("secret", p.Secret.String()))
}

func (p UpdateNotificationChannelParams) wireBody() any {
	return struct {
		Type     string   `json:"type,omitempty"`
		Target   string   `json:"target,omitempty"`
		Events   []string `json:"events,omitempty"`
		Secret   string   `json:"secret,omitempty"`
		Disabled *bool    `json:"disabled,omitempty"`
	}{p.Type, p.Target, p.Events, p.Secret.Reveal(), p.Disabled}
}

// LogValue lets the parameters be logged with slog without the signing secret.
func (p UpdateNotificationChannelParams) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("type", p.Type), slog.String("target", p.Target),
		slog.Any("events", p.Events), slog.String("secret", p.Secret.String())}
	if p.Disabled != nil {
		attrs = append(attrs, slog.Bool("disabled", *p.Disabled))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes the server with its credential as [redacted] (it is only ever read
// from the platform; VoiceICE.Raw carries it to a WebRTC stack).
func (s ICEServer) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		URLs       []string `json:"urls"`
		Username   string   `json:"username,omitempty"`
		Credential Secret   `json:"credential,omitzero"`
	}{s.URLs, s.Username, s.Credential})
}

// VoiceICE's Raw holds the credentials exactly as received, for a WebRTC stack: it is left
// out of every printed, logged or JSON form (and is a Secret besides).

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

// secretsIn lists the secrets held anywhere in a request's parameters (exported fields, in
// nested structs, pointers, slices and maps), so the client scrubs each from an error that
// echoes it without every call having to name them.
func secretsIn(v any) []string {
	var out []string
	var walk func(reflect.Value)
	walk = func(x reflect.Value) {
		switch x.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !x.IsNil() {
				walk(x.Elem())
			}
		case reflect.Struct:
			if x.Type() == reflect.TypeFor[Secret]() {
				if s := x.Interface().(Secret).Reveal(); s != "" {
					out = append(out, s)
				}
				return
			}
			for i := range x.NumField() {
				if x.Type().Field(i).IsExported() {
					walk(x.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range x.Len() {
				walk(x.Index(i))
			}
		case reflect.Map:
			for it := x.MapRange(); it.Next(); {
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(v))
	return out
}
