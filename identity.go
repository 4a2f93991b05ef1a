package taskrouting

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/mail"
	"time"
)

// SetIdentityParams is the body of POST /workers/{id}/identity: the label
// the worker is shown by and the PIN they sign in with (WorkerClient.Login),
// both required, and an optional email. The PIN is a Secret: it never
// appears in an error, a printed or logged value or JSON; the server never
// echoes it.
type SetIdentityParams struct {
	Label string `json:"label"`           // 1-128 characters, e.g. "desk 4"
	PIN   Secret `json:"pin"`             // 4-256 characters
	Email string `json:"email,omitempty"` // a bare address, at most 256 characters
}

// String describes the parameters without the PIN.
func (p SetIdentityParams) String() string {
	return fmt.Sprintf("{Label:%q PIN:[redacted] Email:%q}", p.Label, p.Email)
}

// GoString describes the parameters for %#v without the PIN.
func (p SetIdentityParams) GoString() string { return "taskrouting.SetIdentityParams" + p.String() }

// LogValue lets the parameters be logged with slog without the PIN.
func (p SetIdentityParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("label", p.Label), slog.String("pin", "[redacted]"), slog.String("email", p.Email))
}

// validate holds the fields to the platform's limits (identities.create).
// The errors name the field, never its value.
func (p SetIdentityParams) validate() error {
	return firstError(
		checkLen("SetIdentityParams.Label", p.Label, 1, 128),
		checkLen("SetIdentityParams.PIN", p.PIN.Reveal(), 4, 256),
		checkEmail("SetIdentityParams.Email", p.Email),
	)
}

// checkEmail accepts "" (left out) or a bare address such as
// "ada@example.com": no display name, no angle brackets, no spaces.
func checkEmail(param, email string) error {
	if email == "" {
		return nil
	}
	if err := checkLen(param, email, 1, 256); err != nil {
		return err
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Name != "" || a.Address != email {
		return &ParamError{Param: param, Problem: "must be a bare email address"}
	}
	return nil
}

// WorkerIdentity is a worker's sign-in as the server reports it. It never
// carries the PIN, only whether one is set.
type WorkerIdentity struct {
	ID       string `json:"id"`
	WorkerID string `json:"workerId"`
	Label    string `json:"label"`
	Status   string `json:"status"` // "active" or "revoked"
	Email    string `json:"email,omitempty"`
	HasPIN   bool   `json:"hasPin"`
	// The times are ISO-8601 on the wire; zero when null or absent.
	CreatedAt   time.Time `json:"-"`
	ActivatedAt time.Time `json:"-"`
	RevokedAt   time.Time `json:"-"`
}

type identityTimes struct {
	CreatedAt   wireTime `json:"createdAt,omitzero"`
	ActivatedAt wireTime `json:"activatedAt,omitzero"`
	RevokedAt   wireTime `json:"revokedAt,omitzero"`
}

// UnmarshalJSON decodes the wire form; the times may come in either form.
func (w *WorkerIdentity) UnmarshalJSON(b []byte) error {
	type plain WorkerIdentity
	v := struct {
		*plain
		identityTimes
	}{plain: (*plain)(w)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	w.CreatedAt, w.ActivatedAt, w.RevokedAt = v.identityTimes.CreatedAt.t, v.identityTimes.ActivatedAt.t, v.identityTimes.RevokedAt.t
	return nil
}

// MarshalJSON writes the wire form (ISO-8601 times; zero times left out).
func (w WorkerIdentity) MarshalJSON() ([]byte, error) {
	type plain WorkerIdentity
	return json.Marshal(struct {
		plain
		identityTimes
	}{plain(w), identityTimes{isoOf(w.CreatedAt), isoOf(w.ActivatedAt), isoOf(w.RevokedAt)}})
}

// SetIdentity gives a worker a sign-in for the worker plane, replacing any
// it had.
//
// API: identities.create, POST /workers/{workerId}/identity
func (s *WorkersService) SetIdentity(ctx context.Context, workerID string, p SetIdentityParams, opts ...RequestOption) (*WorkerIdentity, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	var out struct {
		Identity *WorkerIdentity `json:"identity"`
	}
	opts = withOwn(opts, redacting(p.PIN.Reveal()))
	if err := s.c.call(ctx, "POST", escapePath("/workers/", workerID, "/identity"), nil, p, &out, opts); err != nil {
		return nil, err
	}
	if out.Identity == nil {
		return nil, fmt.Errorf("taskrouting: POST %s: the answer carried no identity", escapePath("/workers/", workerID, "/identity"))
	}
	return out.Identity, nil
}

// RemoveIdentity takes a worker's sign-in away; the worker stays routable.
//
// API: identities.remove, DELETE /workers/{workerId}/identity
func (s *WorkersService) RemoveIdentity(ctx context.Context, workerID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/workers/", workerID, "/identity"), nil, nil, nil, opts)
}
