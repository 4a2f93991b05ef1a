package mockserver

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// joinLink is a QR or shared join link (joinLinks.*): anyone holding its URL may join the
// workspace as a new worker (POST /worker-auth/join) until it is revoked, expires or is used up.
type joinLink struct {
	id               string
	label            string
	teamID           *string
	tags             []string
	skills           json.RawMessage // as sent, checked against the catalogue when created
	requiresApproval bool
	maxUses          *int // nil: unlimited
	useCount         int
	createdAt        time.Time
	expiresAt        time.Time
	revokedAt        time.Time
}

func (l *joinLink) status(now time.Time) string {
	switch {
	case !l.revokedAt.IsZero():
		return "revoked"
	case !now.Before(l.expiresAt):
		return "expired"
	case l.maxUses != nil && l.useCount >= *l.maxUses:
		return "exhausted"
	}
	return "active"
}

type wireJoinLink struct {
	ID               string   `json:"id"`
	Label            string   `json:"label"`
	Status           string   `json:"status"`
	TeamID           *string  `json:"teamId"`
	Tags             []string `json:"tags"`
	RequiresApproval bool     `json:"requiresApproval"`
	MaxUses          *int     `json:"maxUses"`
	UseCount         int      `json:"useCount"`
	CreatedAt        string   `json:"createdAt"`
	ExpiresAt        string   `json:"expiresAt"`
	RevokedAt        *string  `json:"revokedAt"`
}

func (l *joinLink) wire(now time.Time) wireJoinLink {
	out := wireJoinLink{
		ID: l.id, Label: l.label, Status: l.status(now), TeamID: l.teamID, Tags: orEmpty(l.tags),
		RequiresApproval: l.requiresApproval, MaxUses: l.maxUses, UseCount: l.useCount,
		CreatedAt: isoTime(l.createdAt), ExpiresAt: isoTime(l.expiresAt),
	}
	if !l.revokedAt.IsZero() {
		t := isoTime(l.revokedAt)
		out.RevokedAt = &t
	}
	return out
}

// prepCreateJoinLink is POST /join-links. The URL (and so the token in it) is answered here
// only: the server keeps a hash.
func prepCreateJoinLink(r *request) (op, *apiError) {
	var in struct {
		Label            string          `json:"label"`
		TeamID           *string         `json:"teamId"`
		Tags             []string        `json:"tags"`
		Skills           json.RawMessage `json:"skills"`
		RequiresApproval bool            `json:"requiresApproval"`
		MaxUses          *float64        `json:"maxUses"`
		ExpiresInMs      *float64        `json:"expiresInMs"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	l := &joinLink{label: in.Label, teamID: in.TeamID, tags: in.Tags, requiresApproval: in.RequiresApproval}
	if in.MaxUses != nil {
		n := int(*in.MaxUses) // a whole number: the schema says so
		l.maxUses = &n
	}
	ttl := defaultJoinLinkTTL
	if in.ExpiresInMs != nil {
		ttl = time.Duration(*in.ExpiresInMs) * time.Millisecond
	}
	if len(in.Skills) > 0 && !isNull(in.Skills) {
		l.skills = compact(in.Skills)
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if l.teamID != nil && ws.teams.find(*l.teamID) == nil {
			return 0, nil, validationf("body/teamId names no team of this workspace (%s)", *l.teamID)
		}
		if l.skills != nil {
			x := &workerExtra{skills: l.skills}
			if err := ws.resolveWorkerSkills(x); err != nil {
				return 0, nil, err
			}
			l.skills = x.skills
		}
		token := "jt_" + rand.Text()
		l.id, l.createdAt, l.expiresAt = ws.newID("jl_"), now, now.Add(ttl)
		ws.onboard.links = append(ws.onboard.links, l)
		if ws.onboard.linkTokens == nil {
			ws.onboard.linkTokens = map[[32]byte]*joinLink{}
		}
		ws.onboard.linkTokens[hashToken(token)] = l
		return http.StatusOK, map[string]any{"link": l.wire(now), "joinUrl": r.origin() + "/join/" + url.PathEscape(token)}, nil
	}, nil
}

func prepListJoinLinks(*request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		out := make([]wireJoinLink, 0, len(ws.onboard.links))
		for _, l := range ws.onboard.links {
			out = append(out, l.wire(now))
		}
		return http.StatusOK, map[string]any{"links": out}, nil
	}, nil
}

// prepRevokeJoinLink is DELETE /join-links/{id}. A revoked link stays listed; revoking it again
// changes nothing and answers 204 as well.
func prepRevokeJoinLink(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		i := slices.IndexFunc(ws.onboard.links, func(l *joinLink) bool { return l.id == id })
		if i < 0 {
			return 0, nil, notFoundf("join link %s not found", id)
		}
		if l := ws.onboard.links[i]; l.revokedAt.IsZero() {
			l.revokedAt = now
		}
		return http.StatusNoContent, nil, nil
	}, nil
}

// prepJoin is POST /worker-auth/join: a new worker (server-made id) with the link's tags,
// skills and team, a sign-in with the PIN given, and a session.
func prepJoin(r *request) (op, *apiError) {
	var in struct {
		Token string  `json:"token"`
		Name  string  `json:"name"`
		PIN   string  `json:"pin"`
		Email *string `json:"email"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	r.linkToken = in.Token
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		l := ws.onboard.linkTokens[hashToken(in.Token)]
		if l == nil || l.status(now) != "active" {
			return 0, nil, invalidToken()
		}
		if in.Email != nil {
			for _, other := range ws.identities {
				if other.email != nil && *other.email == *in.Email {
					return 0, nil, conflictf(CodeIdentityExists, "another worker's sign-in has this email")
				}
			}
		}
		workerID := ws.newID("w_")
		var teams []string
		if l.teamID != nil && ws.teams.find(*l.teamID) != nil {
			teams = []string{*l.teamID}
		}
		if aerr := ws.applyJoinProfile(now, workerID, false, l.tags, l.skills, teams); aerr != nil {
			return 0, nil, aerr
		}
		l.useCount++
		name := in.Name
		ws.identitySeq++
		if ws.identities == nil {
			ws.identities = map[string]*identity{}
		}
		ws.identities[workerID] = &identity{
			id: ws.newID("wid_"), seq: ws.identitySeq, pinHash: hashPIN(in.PIN), hasPIN: true,
			label: &name, email: in.Email, status: "active", createdAt: now, activatedAt: now,
			pendingApproval: l.requiresApproval,
		}
		pending := l.requiresApproval
		out := newSessionAnswer(ws, workerID, "", now)
		out.WorkspaceID, out.WorkerID, out.Label, out.PendingApproval, out.PortalURL = ws.id, workerID, &name, &pending, portalURL(r.origin(), ws)
		return http.StatusOK, out, nil
	}, nil
}
