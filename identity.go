package taskrouting

import (
	"context"
	"fmt"
	"log/slog"
)

// SetIdentityParams is the body of POST /workers/{id}/identity: the PIN the
// worker signs in with (WorkerClient.Login) and an optional label. The PIN
// never appears in an error or in the value's String, GoString or LogValue;
// the server never echoes it.
type SetIdentityParams struct {
	PIN   string `json:"pin"`
	Label string `json:"label,omitempty"` // e.g. "desk 4"
}

// String describes the parameters without the PIN.
func (p SetIdentityParams) String() string {
	return fmt.Sprintf("{PIN:[redacted] Label:%q}", p.Label)
}

// GoString describes the parameters for %#v without the PIN.
func (p SetIdentityParams) GoString() string { return "taskrouting.SetIdentityParams" + p.String() }

// LogValue lets the parameters be logged with slog without the PIN.
func (p SetIdentityParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("pin", "[redacted]"), slog.String("label", p.Label))
}

// WorkerIdentity is a worker's sign-in as the server reports it.
type WorkerIdentity struct {
	WorkerID string `json:"workerId"`
	Label    string `json:"label"`
	HasPIN   bool   `json:"hasPin"`
}

// SetIdentity gives a worker a sign-in for the worker plane, replacing any
// it had: POST /workers/{id}/identity.
func (s *WorkersService) SetIdentity(ctx context.Context, workerID string, p SetIdentityParams, opts ...RequestOption) (*WorkerIdentity, error) {
	if err := checkID("workerID", workerID); err != nil {
		return nil, err
	}
	if p.PIN == "" {
		return nil, &ParamError{Param: "SetIdentityParams.PIN", Problem: "must not be empty"}
	}
	var out struct {
		Identity *WorkerIdentity `json:"identity"`
	}
	opts = withOwn(opts, redacting(p.PIN))
	if err := s.c.call(ctx, "POST", escapePath("/workers/", workerID, "/identity"), nil, p, &out, opts); err != nil {
		return nil, err
	}
	if out.Identity == nil {
		return nil, fmt.Errorf("taskrouting: POST %s: the answer carried no identity", escapePath("/workers/", workerID, "/identity"))
	}
	return out.Identity, nil
}

// RemoveIdentity takes a worker's sign-in away; the worker stays routable:
// DELETE /workers/{id}/identity.
func (s *WorkersService) RemoveIdentity(ctx context.Context, workerID string, opts ...RequestOption) error {
	if err := checkID("workerID", workerID); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/workers/", workerID, "/identity"), nil, nil, nil, opts)
}
