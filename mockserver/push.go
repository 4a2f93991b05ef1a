package mockserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Push and voice on the worker and supervisor planes (docs/contract.md, "Push and voice").
// Subscriptions and devices are stored, validated and answered; the mock server never sends
// a push message. Voice has no media either: supervisor.voiceIce and worker.voiceIce hand
// out the ICE servers given with WithVoiceICEServers, and answer 404 voice_disabled without.

// WithPushPublicKey turns web push on for both session planes: pushConfig answers enabled
// with this VAPID public key. Without it pushConfig answers {"enabled":false,"publicKey":null},
// as a platform deployment without a keypair does. Nothing is ever pushed either way.
func WithPushPublicKey(key string) Option {
	return func(c *config) { c.pushPublicKey = key }
}

// WithVoiceICEServers turns voice on: voiceIce answers these ICE servers on both session
// planes, as RTCPeerConnection takes them (a JSON array of {urls, username?, credential?}).
// Without it voiceIce is 404 voice_disabled.
func WithVoiceICEServers(servers json.RawMessage) Option {
	return func(c *config) {
		var list []json.RawMessage
		if err := json.Unmarshal(servers, &list); err != nil || list == nil {
			c.errs = append(c.errs, errors.New("mockserver: WithVoiceICEServers needs a JSON array"))
			return
		}
		c.iceServers = compact(servers)
	}
}

// PushRegistration is one stored push target, as PushRegistrations lists it.
type PushRegistration struct {
	WorkspaceID string `json:"workspaceId"`
	// Plane is "worker" or "supervisor"; OwnerID is the worker's or the supervisor's id.
	Plane   string `json:"plane"`
	OwnerID string `json:"ownerId"`
	// Kind is "web" (a browser subscription: Endpoint) or "device" (a native app's push
	// token: Token and Platform).
	Kind      string    `json:"kind"`
	Endpoint  string    `json:"endpoint,omitempty"`
	Token     string    `json:"token,omitempty"`
	Platform  string    `json:"platform,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// pushStore holds the workers' devices and browser subscriptions. Its lock is taken after a
// workspace's, never before one.
type pushStore struct {
	mu      sync.Mutex
	entries []pushEntry // in registration order
}

type pushEntry struct {
	ws  *workspace
	reg PushRegistration
}

func (ps *pushStore) reset() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.entries = nil
}

// put replaces the owner's entry with the same endpoint or token (a re-registration keeps one
// entry, with the first createdAt), or adds one; it returns the stored registration.
func (ps *pushStore) put(ws *workspace, reg PushRegistration) PushRegistration {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for i, e := range ps.entries {
		if e.ws == ws && same(e.reg, reg) {
			reg.CreatedAt = e.reg.CreatedAt
			ps.entries[i].reg = reg
			return reg
		}
	}
	ps.entries = append(ps.entries, pushEntry{ws: ws, reg: reg})
	return reg
}

func (ps *pushStore) remove(ws *workspace, reg PushRegistration) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.entries = slices.DeleteFunc(ps.entries, func(e pushEntry) bool { return e.ws == ws && same(e.reg, reg) })
}

// removeOwner drops every entry of one owner (a supervisor signing out).
func (ps *pushStore) removeOwner(ws *workspace, plane, ownerID string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.entries = slices.DeleteFunc(ps.entries, func(e pushEntry) bool {
		return e.ws == ws && e.reg.Plane == plane && e.reg.OwnerID == ownerID
	})
}

func same(a, b PushRegistration) bool {
	return a.Plane == b.Plane && a.OwnerID == b.OwnerID && a.Kind == b.Kind && a.Endpoint == b.Endpoint && a.Token == b.Token
}

// PushRegistrations returns the stored push targets of both planes, oldest first. A test
// asserts on it that a subscription was stored, replaced or dropped; nothing is delivered.
func (s *Server) PushRegistrations() []PushRegistration {
	s.push.mu.Lock()
	defer s.push.mu.Unlock()
	out := make([]PushRegistration, len(s.push.entries))
	for i, e := range s.push.entries {
		out[i] = e.reg
	}
	return out
}

// newWorkerPushRoutes binds the worker plane's push and voice operations to s; s is nil when
// only the table is wanted (Operations).
func newWorkerPushRoutes(s *Server) []route {
	return []route{
		bind("worker.voiceIce", s.prepVoiceICE),
		bind("worker.registerDevice", s.prepRegisterDevice),
		bind("worker.unregisterDevice", s.prepUnregisterDevice),
		bind("worker.pushConfig", s.prepPushConfig),
		bind("worker.pushSubscribe", s.prepWorkerSubscribe),
		bind("worker.pushUnsubscribe", s.prepWorkerUnsubscribe),
	}
}

func (s *Server) prepVoiceICE(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if aerr := stillThere(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		if s.cfg.iceServers == nil {
			return 0, nil, errorf(http.StatusNotFound, CodeVoiceDisabled, "voice is not enabled on this deployment")
		}
		return http.StatusOK, map[string]json.RawMessage{"iceServers": s.cfg.iceServers}, nil
	}, nil
}

func (s *Server) prepPushConfig(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if aerr := stillThere(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		var key *string
		if s.cfg.pushPublicKey != "" {
			k := s.cfg.pushPublicKey
			key = &k
		}
		return http.StatusOK, map[string]any{"enabled": key != nil, "publicKey": key}, nil
	}, nil
}

// stillThere checks a worker session's worker still exists (a removed worker's token is
// dead); a supervisor session needs nothing more.
func stillThere(ws *workspace, r *request) *apiError {
	if r.supervisor != nil {
		return nil
	}
	_, aerr := me(ws, r)
	return aerr
}

// subscription decodes {endpoint, keys: {p256dh, auth}} (the schema has checked it). The
// keys are not kept: nothing is ever sent.
func subscription(r *request) (PushRegistration, *apiError) {
	var b struct {
		Endpoint string `json:"endpoint"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return PushRegistration{}, err
	}
	return PushRegistration{Kind: "web", Endpoint: b.Endpoint}, nil
}

func endpointOnly(r *request) (string, *apiError) {
	var b struct {
		Endpoint string `json:"endpoint"`
	}
	err := decodeBody(r.body, &b)
	return b.Endpoint, err
}

func (s *Server) prepWorkerSubscribe(r *request) (op, *apiError) {
	reg, aerr := subscription(r)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		reg.WorkspaceID, reg.Plane, reg.OwnerID, reg.CreatedAt = s.workspaceIDOf(ws), "worker", r.worker, now
		reg = s.push.put(ws, reg)
		return http.StatusOK, map[string]string{"endpoint": reg.Endpoint, "createdAt": isoTime(reg.CreatedAt)}, nil
	}, nil
}

func (s *Server) prepWorkerUnsubscribe(r *request) (op, *apiError) {
	endpoint, aerr := endpointOnly(r)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		// An endpoint not stored is fine: the browser may have dropped it first.
		s.push.remove(ws, PushRegistration{Plane: "worker", OwnerID: r.worker, Kind: "web", Endpoint: endpoint})
		return http.StatusNoContent, nil, nil
	}, nil
}

func (s *Server) prepRegisterDevice(r *request) (op, *apiError) {
	var b struct {
		Token    string `json:"token"`
		Platform string `json:"platform"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	token, platform := b.Token, b.Platform
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		reg := s.push.put(ws, PushRegistration{WorkspaceID: s.workspaceIDOf(ws), Plane: "worker", OwnerID: r.worker,
			Kind: "device", Token: token, Platform: platform, CreatedAt: now})
		created := isoTime(reg.CreatedAt)
		return http.StatusOK, map[string]any{"token": reg.Token, "platform": reg.Platform, "createdAt": created}, nil
	}, nil
}

func (s *Server) prepUnregisterDevice(r *request) (op, *apiError) {
	var b struct {
		Token string `json:"token"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	token := b.Token
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		s.push.remove(ws, PushRegistration{Plane: "worker", OwnerID: r.worker, Kind: "device", Token: token})
		return http.StatusNoContent, nil, nil
	}, nil
}

func (s *Server) prepSupervisorSubscribe(r *request) (op, *apiError) {
	reg, aerr := subscription(r)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		reg.WorkspaceID, reg.Plane, reg.OwnerID, reg.CreatedAt = r.supervisor.wsID, "supervisor", r.supervisor.id, now
		s.push.put(ws, reg)
		// Unlike the worker plane's, the answer is a bare acknowledgement.
		return http.StatusOK, map[string]bool{"ok": true}, nil
	}, nil
}

func (s *Server) prepSupervisorUnsubscribe(r *request) (op, *apiError) {
	endpoint, aerr := endpointOnly(r)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		s.push.remove(ws, PushRegistration{Plane: "supervisor", OwnerID: r.supervisor.id, Kind: "web", Endpoint: endpoint})
		return http.StatusNoContent, nil, nil
	}, nil
}

// workspaceIDOf names a workspace by its id (the one sign-ins use).
func (s *Server) workspaceIDOf(ws *workspace) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i, k := range s.keys {
		if s.workspaces[k] == ws {
			return s.workspaceIDs[i]
		}
	}
	return ""
}
