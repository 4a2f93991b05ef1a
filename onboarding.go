package taskrouting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// Onboarding from the workspace plane: worker sign-ins listed, invited by
// email and updated (WorkersService), join links (JoinLinksService) and the
// worker portal's address (Client.Portal). An invite URL and a join URL
// work like a credential until used: the types that carry one never print
// it.

// InviteParams is the body of POST /worker-identities/invite. Only Email is
// required; without WorkerID the server makes the worker's id.
type InviteParams struct {
	Email    string   `json:"email"`              // a bare address, at most 256 characters
	WorkerID string   `json:"workerId,omitempty"` // the worker to invite; created when it does not exist
	Label    string   `json:"label,omitempty"`    // 1-128 characters
	Tags     []string `json:"tags,omitempty"`     // at most 64, each 1-64 characters
	// Skills and TeamIDs are given to the worker, as with Workers.Upsert,
	// but without a skill's ValidUntil (a *ParamError here).
	Skills  []SkillAssignment `json:"skills,omitempty"`  // at most 128
	TeamIDs []string          `json:"teamIds,omitempty"` // at most 32
}

func (p InviteParams) validate() error {
	if p.Email == "" {
		return &ParamError{Param: "InviteParams.Email", Problem: "must not be empty"}
	}
	errs := []error{
		checkEmail("InviteParams.Email", p.Email),
		checkLen("InviteParams.Label", p.Label, 0, 128),
		checkCount("InviteParams.Tags", len(p.Tags), 0, 64),
		checkCount("InviteParams.Skills", len(p.Skills), 0, 128),
		checkCount("InviteParams.TeamIDs", len(p.TeamIDs), 0, 32),
	}
	if p.WorkerID != "" {
		errs = append(errs, checkID("InviteParams.WorkerID", p.WorkerID), checkLen("InviteParams.WorkerID", p.WorkerID, 1, 128))
	}
	for i, tag := range p.Tags {
		errs = append(errs, checkLen(fmt.Sprintf("InviteParams.Tags[%d]", i), tag, 1, 64))
	}
	for i, id := range p.TeamIDs {
		errs = append(errs, checkLen(fmt.Sprintf("InviteParams.TeamIDs[%d]", i), id, 1, 64))
	}
	errs = append(errs, checkSkillLevels("InviteParams.Skills", p.Skills))
	return firstError(errs...)
}

// checkSkillLevels holds skill assignments to the platform's limits.
func checkSkillLevels(param string, skills []SkillAssignment) error {
	for i, s := range skills {
		at := fmt.Sprintf("%s[%d]", param, i)
		if err := firstError(
			checkLen(at+".SkillID", s.SkillID, 1, 64),
			checkRange(at+".Level", float64(s.Level), 1, 5),
		); err != nil {
			return err
		}
		if s.WeightOverride != nil {
			if err := checkRange(at+".WeightOverride", *s.WeightOverride, 0, 100); err != nil {
				return err
			}
		}
		// An invite's or a join link's skills have no validUntil on the
		// wire (api/openapi.json refuses the member), so a date here would
		// only be turned away by the server.
		if s.ValidUntil != "" {
			return &ParamError{Param: at + ".ValidUntil", Problem: "is not taken here; set it with Workers.Patch once the worker exists"}
		}
	}
	return nil
}

// Invite is the answer of Workers.Invite and Workers.ResendInvite.
// InviteURL signs the worker in until it is used, so it is a Secret: it is
// never printed, logged or marshalled; Reveal it to hand the link over, or
// pass it to LinkToken.
type Invite struct {
	Identity      WorkerIdentity `json:"identity"`
	WorkerCreated bool           `json:"workerCreated"` // the invite created the worker
	// EmailStatus is "sent", "mailer_unconfigured" or "send_failed"; with
	// the last two, handing InviteURL over is up to the caller.
	EmailStatus string `json:"emailStatus"`
	InviteURL   Secret `json:"inviteUrl"` // Reveal it to hand the link over
}

// String describes the invite without its URL.
func (i Invite) String() string {
	return fmt.Sprintf("{WorkerID:%q WorkerCreated:%t EmailStatus:%q InviteURL:[redacted]}", i.Identity.WorkerID, i.WorkerCreated, i.EmailStatus)
}

// GoString describes the invite for %#v without its URL.
func (i Invite) GoString() string { return "taskrouting.Invite" + i.String() }

// LogValue lets the invite be logged with slog without its URL.
func (i Invite) LogValue() slog.Value {
	return slog.GroupValue(slog.String("workerId", i.Identity.WorkerID), slog.Bool("workerCreated", i.WorkerCreated),
		slog.String("emailStatus", i.EmailStatus), slog.String("inviteUrl", "[redacted]"))
}

// Format prints the invite without its URL, whatever the verb.
func (i Invite) Format(f fmt.State, verb rune) { formatSafe(f, verb, i.String(), i.GoString()) }

// UpdateIdentityParams is the body of PATCH /workers/{workerId}/identity;
// zero members are left out and keep their value. Email is nullable: Null
// erases it. Status "revoked" ends the worker's sessions and refuses their
// sign-in until set back to "active". The PIN is a Secret, never printed.
type UpdateIdentityParams struct {
	Label  string           `json:"label,omitempty"`
	Email  Nullable[string] `json:"email,omitzero"`
	PIN    Secret           `json:"pin,omitzero"`     // 4-256 characters
	Status string           `json:"status,omitempty"` // "active" or "revoked"
}

// String describes the parameters without the PIN.
func (p UpdateIdentityParams) String() string {
	email, _ := p.Email.Get()
	return fmt.Sprintf("{Label:%q Email:%q PIN:[redacted] Status:%q}", p.Label, email, p.Status)
}

// GoString describes the parameters for %#v without the PIN.
func (p UpdateIdentityParams) GoString() string {
	return "taskrouting.UpdateIdentityParams" + p.String()
}

// LogValue lets the parameters be logged with slog without the PIN.
func (p UpdateIdentityParams) LogValue() slog.Value {
	email, _ := p.Email.Get()
	return slog.GroupValue(slog.String("label", p.Label), slog.String("email", email), slog.String("pin", "[redacted]"), slog.String("status", p.Status))
}

// Format prints the parameters without the PIN, whatever the verb.
func (p UpdateIdentityParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

func (p UpdateIdentityParams) validate() error {
	if p.Label == "" && p.Email.IsZero() && p.PIN.IsZero() && p.Status == "" {
		return &ParamError{Param: "UpdateIdentityParams", Problem: "must change at least one member"}
	}
	email, _ := p.Email.Get()
	errs := []error{checkLen("UpdateIdentityParams.Label", p.Label, 0, 128), checkEmail("UpdateIdentityParams.Email", email)}
	if !p.Email.IsZero() && !p.Email.IsNull() && email == "" {
		errs = append(errs, &ParamError{Param: "UpdateIdentityParams.Email", Problem: "must not be empty (use Null to erase it)"})
	}
	if !p.PIN.IsZero() {
		errs = append(errs, checkLen("UpdateIdentityParams.PIN", p.PIN.Reveal(), 4, 256))
	}
	if p.Status != "" && p.Status != "active" && p.Status != "revoked" {
		errs = append(errs, &ParamError{Param: "UpdateIdentityParams.Status", Problem: `must be "active" or "revoked"`})
	}
	return firstError(errs...)
}

// ListIdentities returns the workspace's worker sign-ins, oldest first.
// They never carry a PIN, only whether one is set.
//
// API: identities.list, GET /worker-identities
func (s *WorkersService) ListIdentities(ctx context.Context, opts ...RequestOption) ([]WorkerIdentity, error) {
	var out struct {
		Identities []WorkerIdentity `json:"identities"`
	}
	if err := s.c.call(ctx, "GET", "/worker-identities", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Identities, nil
}

// Invite gives a worker a sign-in without a PIN and emails them a link to
// choose one (WorkerClient.AcceptInvite); the worker is created first when
// it does not exist. Check EmailStatus: when the mail did not go out,
// InviteURL is the only way to reach the worker.
//
// API: identities.invite, POST /worker-identities/invite
func (s *WorkersService) Invite(ctx context.Context, p InviteParams, opts ...RequestOption) (*Invite, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(Invite)
	if err := s.c.call(ctx, "POST", "/worker-identities/invite", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// ResendInvite sends a worker's invite again with a new link; the old link
// stops working.
//
// API: identities.resendInvite, POST /worker-identities/{workerId}/invite/resend
func (s *WorkersService) ResendInvite(ctx context.Context, workerID string, opts ...RequestOption) (*Invite, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	out := new(Invite)
	if err := s.c.call(ctx, "POST", escapePath("/worker-identities/", workerID, "/invite/resend"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateIdentity changes a worker's sign-in: label, email, PIN or status.
// Revoking is a status change here, not RemoveIdentity.
//
// API: identities.update, PATCH /workers/{workerId}/identity
func (s *WorkersService) UpdateIdentity(ctx context.Context, workerID string, p UpdateIdentityParams, opts ...RequestOption) (*WorkerIdentity, error) {
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
	if err := s.c.call(ctx, "PATCH", escapePath("/workers/", workerID, "/identity"), nil, p, &out, opts); err != nil {
		return nil, err
	}
	if out.Identity == nil {
		return nil, fmt.Errorf("taskrouting: PATCH %s: the answer carried no identity", escapePath("/workers/", workerID, "/identity"))
	}
	return out.Identity, nil
}

// JoinLink is a link anyone may use to join the workspace as a new worker
// (WorkerClient.Join) while its Status is "active"; the others are
// "revoked", "expired" and "exhausted".
type JoinLink struct {
	ID               string   `json:"id"`
	Label            string   `json:"label"`
	Status           string   `json:"status"`
	TeamID           string   `json:"teamId"` // "" when null
	Tags             []string `json:"tags"`
	RequiresApproval bool     `json:"requiresApproval"`
	// MaxUses is nil for a link without a cap; a cap of 0 would be a link
	// already used up.
	MaxUses   *int      `json:"maxUses"`
	UseCount  int       `json:"useCount"`
	CreatedAt time.Time `json:"-"` // wire createdAt, ISO-8601
	ExpiresAt time.Time `json:"-"` // wire expiresAt, ISO-8601
	RevokedAt time.Time `json:"-"` // wire revokedAt; zero unless revoked
}

// UnmarshalJSON reads the wire times and the nullable team.
func (l *JoinLink) UnmarshalJSON(b []byte) error {
	type plain JoinLink
	w := struct {
		*plain
		TeamID    *string  `json:"teamId"`
		CreatedAt wireTime `json:"createdAt"`
		ExpiresAt wireTime `json:"expiresAt"`
		RevokedAt wireTime `json:"revokedAt"`
	}{plain: (*plain)(l)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	l.TeamID, l.CreatedAt, l.ExpiresAt, l.RevokedAt = nullToEmpty(w.TeamID), w.CreatedAt.t, w.ExpiresAt.t, w.RevokedAt.t
	return nil
}

// CreatedJoinLink is the answer of JoinLinks.Create. JoinURL is given here
// only (a lost one is replaced by a new link, never recovered) and works
// like a credential, so it is a Secret: never printed, logged or
// marshalled; Reveal it to hand the link over, or pass it to LinkToken.
type CreatedJoinLink struct {
	Link    JoinLink `json:"link"`
	JoinURL Secret   `json:"joinUrl"` // Reveal it to hand the link over
}

// String describes the link without its URL.
func (l CreatedJoinLink) String() string {
	return fmt.Sprintf("{Link:{ID:%q Label:%q Status:%q} JoinURL:[redacted]}", l.Link.ID, l.Link.Label, l.Link.Status)
}

// GoString describes the link for %#v without its URL.
func (l CreatedJoinLink) GoString() string { return "taskrouting.CreatedJoinLink" + l.String() }

// LogValue lets the link be logged with slog without its URL.
func (l CreatedJoinLink) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", l.Link.ID), slog.String("label", l.Link.Label), slog.String("joinUrl", "[redacted]"))
}

// Format prints the link without its URL, whatever the verb.
func (l CreatedJoinLink) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, l.String(), l.GoString())
}

// CreateJoinLinkParams is the body of POST /join-links. Only Label is
// required. Workers who join get the Tags, Skills and team.
type CreateJoinLinkParams struct {
	Label  string            `json:"label"`            // 1-128 characters
	TeamID string            `json:"teamId,omitempty"` // at most 64 characters
	Tags   []string          `json:"tags,omitempty"`   // at most 64, each 1-64 characters
	Skills []SkillAssignment `json:"skills,omitempty"` // at most 128; no ValidUntil (a *ParamError)
	// RequiresApproval holds joined workers off shift until an operator
	// admits them.
	RequiresApproval bool `json:"requiresApproval,omitempty"`
	MaxUses          int  `json:"maxUses,omitempty"` // 1-10000; 0 leaves the link uncapped
	// ExpiresIn is the link's life, 1 minute to 90 days, sent in whole
	// milliseconds; 0 leaves it to the server.
	ExpiresIn time.Duration `json:"-"`
}

func (p CreateJoinLinkParams) validate() error {
	errs := []error{
		checkLen("CreateJoinLinkParams.Label", p.Label, 1, 128),
		checkLen("CreateJoinLinkParams.TeamID", p.TeamID, 0, 64),
		checkCount("CreateJoinLinkParams.Tags", len(p.Tags), 0, 64),
		checkCount("CreateJoinLinkParams.Skills", len(p.Skills), 0, 128),
		checkSkillLevels("CreateJoinLinkParams.Skills", p.Skills),
	}
	for i, tag := range p.Tags {
		errs = append(errs, checkLen(fmt.Sprintf("CreateJoinLinkParams.Tags[%d]", i), tag, 1, 64))
	}
	if p.MaxUses != 0 {
		errs = append(errs, checkRange("CreateJoinLinkParams.MaxUses", float64(p.MaxUses), 1, 10_000))
	}
	if p.ExpiresIn != 0 {
		errs = append(errs, checkRange("CreateJoinLinkParams.ExpiresIn", float64(p.ExpiresIn.Milliseconds()), 60_000, 7_776_000_000))
	}
	return firstError(errs...)
}

// MarshalJSON writes the wire form, with ExpiresIn as expiresInMs.
func (p CreateJoinLinkParams) MarshalJSON() ([]byte, error) {
	type plain CreateJoinLinkParams
	return json.Marshal(struct {
		plain
		ExpiresInMs int64 `json:"expiresInMs,omitempty"`
	}{plain(p), p.ExpiresIn.Milliseconds()})
}

// JoinLinksService is joinLinks.*: links that let workers join by
// themselves.
type JoinLinksService struct{ c *Client }

// Create makes a join link and returns it with its URL.
//
// API: joinLinks.create, POST /join-links
func (s *JoinLinksService) Create(ctx context.Context, p CreateJoinLinkParams, opts ...RequestOption) (*CreatedJoinLink, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(CreatedJoinLink)
	if err := s.c.call(ctx, "POST", "/join-links", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns the workspace's join links, revoked and spent ones included.
//
// API: joinLinks.list, GET /join-links
func (s *JoinLinksService) List(ctx context.Context, opts ...RequestOption) ([]JoinLink, error) {
	var out struct {
		Links []JoinLink `json:"links"`
	}
	if err := s.c.call(ctx, "GET", "/join-links", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Links, nil
}

// Revoke stops a join link from working; it stays listed.
//
// API: joinLinks.revoke, DELETE /join-links/{id}
func (s *JoinLinksService) Revoke(ctx context.Context, linkID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("linkID", linkID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/join-links/", linkID), nil, nil, nil, opts)
}

// LinkToken reads the token out of an invite URL (its token query
// parameter, as Invite.InviteURL carries it) or a join URL (its last path
// segment, as CreatedJoinLink.JoinURL), for AcceptInviteParams.Token and
// JoinParams.Token. The error never repeats the URL. A link received some
// other way (an email) goes in as NewSecret(link).
func LinkToken(link Secret) (Secret, error) {
	u, err := url.Parse(link.Reveal())
	if err != nil {
		return Secret{}, errors.New("taskrouting: the link is not a URL")
	}
	if t := u.Query().Get("token"); t != "" {
		return NewSecret(t), nil
	}
	// The last segment as sent, unescaped on its own: an escaped "/" stays in the token.
	escaped := u.EscapedPath()
	if i := strings.LastIndexByte(escaped, '/'); i >= 0 {
		if t, err := url.PathUnescape(escaped[i+1:]); err == nil && t != "" {
			return NewSecret(t), nil
		}
	}
	return Secret{}, errors.New("taskrouting: the link carries no token")
}

// PortalLink is the answer of GET /portal: where the workspace's worker
// portal is. Exists false is a normal state: no portal bundle is
// published.
type PortalLink struct {
	PortalEnabled bool      `json:"portalEnabled"`
	PortalURL     string    `json:"portalUrl"`
	Exists        bool      `json:"exists"`
	Version       *int      `json:"version"`  // nil without a published bundle
	Template      string    `json:"template"` // "" when null
	PublishedAt   time.Time `json:"-"`        // wire publishedAt, ISO-8601; zero when null
}

// UnmarshalJSON reads the wire time and the nullable template.
func (p *PortalLink) UnmarshalJSON(b []byte) error {
	type plain PortalLink
	w := struct {
		*plain
		Template    *string  `json:"template"`
		PublishedAt wireTime `json:"publishedAt"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.Template, p.PublishedAt = nullToEmpty(w.Template), w.PublishedAt.t
	return nil
}

// Portal returns where the workspace's worker portal is.
//
// API: portal, GET /portal
func (c *Client) Portal(ctx context.Context, opts ...RequestOption) (*PortalLink, error) {
	out := new(PortalLink)
	if err := c.call(ctx, "GET", "/portal", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
