package mockserver

import (
	"crypto/subtle"
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// The worker's own session and profile (worker plane): refresh, PIN change, preferences,
// skills and location.

// locationInterval is the platform's rate limit on worker.updateLocation (about one per 10 s),
// enforced on the server's clock.
const locationInterval = 10 * time.Second

// prepRefresh is POST /worker-auth/refresh: a new token of the same sign-in with a new expiry.
// The old one keeps working for refreshGrace at most, for calls already in flight.
func prepRefresh(r *request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		family := ws.sessions.family(r.token)
		if family == "" {
			return 0, nil, unauthorized("missing, invalid or revoked worker token")
		}
		out := newSessionAnswer(ws, r.worker, family, now)
		ws.sessions.retire(r.token, now)
		return http.StatusOK, out, nil
	}, nil
}

// prepChangePIN is POST /portal/me/pin. The session making the change survives; every other
// session of the worker ends (docs/contract.md, "Worker sessions").
func prepChangePIN(r *request) (op, *apiError) {
	var in struct {
		CurrentPIN string `json:"currentPin"`
		NewPIN     string `json:"newPin"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		id := ws.identities[r.worker]
		h := hashPIN(in.CurrentPIN)
		if id == nil || subtle.ConstantTimeCompare(h[:], id.pinHash[:]) != 1 {
			return 0, nil, errorf(http.StatusBadRequest, CodeInvalidCurrentPIN, "the current PIN is wrong")
		}
		id.pinHash = hashPIN(in.NewPIN)
		ws.sessions.revokeWorker(ws, r.worker, ws.sessions.family(r.token))
		return http.StatusNoContent, nil, nil
	}, nil
}

// preferences reads a worker's locale (nil: the workspace default) and whether it gets email
// notices (true unless turned off).
func preferences(w match.WorkerDetail) (*string, bool) {
	x, _ := w.Extra.(*workerExtra)
	if x == nil {
		return nil, true
	}
	var locale *string
	if l, _ := x.others["locale"].(string); l != "" {
		locale = &l
	}
	notices, set := x.others["emailNotices"].(bool)
	return locale, notices || !set
}

// prepSetPreferences is PATCH /portal/me (worker.setLocale): locale (null: the workspace
// default) and emailNotices. The locale is the same one workers.patch sets.
func prepSetPreferences(r *request) (op, *apiError) {
	var in struct {
		Locale       json.RawMessage `json:"locale"` // null: back to the workspace default
		EmailNotices *bool           `json:"emailNotices"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	x := &workerExtra{}
	if in.Locale != nil {
		var loc string // "" stands for null
		if !isNull(in.Locale) {
			_ = json.Unmarshal(in.Locale, &loc) // a string: the schema says so
		}
		x.set("locale", loc)
	}
	if in.EmailNotices != nil {
		x.set("emailNotices", *in.EmailNotices)
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		if x.others != nil {
			if _, _, aerr := ws.writeWorker(now, match.WorkerInput{ID: r.worker, Extra: x}, true); aerr != nil {
				return 0, nil, aerr
			}
		}
		w, aerr := me(ws, r)
		if aerr != nil {
			return 0, nil, aerr
		}
		locale, notices := preferences(w)
		return http.StatusOK, map[string]any{"workerId": r.worker, "locale": locale, "emailNotices": notices}, nil
	}, nil
}

// prepSkillCatalog is GET /portal/skills: the workspace's catalogue, read-only, as skills.list
// orders it.
func prepSkillCatalog(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		return http.StatusOK, skillList{Skills: append([]skill{}, sortedByKey(ws.skillCat.skills)...)}, nil
	}, nil
}

// prepSetMySkills is PUT /portal/me/skills: the worker's whole skill set, with levels. Skills
// it drops lose any weight override an operator set; shift state is left alone.
func prepSetMySkills(r *request) (op, *apiError) {
	var in struct {
		Skills json.RawMessage `json:"skills"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		old, aerr := me(ws, r)
		if aerr != nil {
			return 0, nil, aerr
		}
		x := &workerExtra{skills: compact(in.Skills)}
		if err := ws.resolveWorkerSkills(x); err != nil {
			return 0, nil, err
		}
		// A skill the worker keeps keeps its operator's weight override.
		var sent []skillAssignment
		_ = json.Unmarshal(x.skills, &sent) // resolveWorkerSkills wrote it
		for i := range sent {
			for _, held := range storedSkills(old.Extra) {
				if held.SkillID == sent[i].SkillID {
					sent[i].WeightOverride = held.WeightOverride
				}
			}
		}
		b, err := json.Marshal(append([]skillAssignment{}, sent...))
		if err != nil {
			return 0, nil, errorf(http.StatusInternalServerError, CodeInternalError, "%s", err.Error())
		}
		x.skills = b
		if _, _, aerr := ws.writeWorker(now, match.WorkerInput{ID: r.worker, Extra: x}, true); aerr != nil {
			return 0, nil, aerr
		}
		if id := ws.identities[r.worker]; id != nil {
			id.skillsChosen = true
		}
		w, aerr := me(ws, r)
		if aerr != nil {
			return 0, nil, aerr
		}
		return http.StatusOK, map[string]any{"workerId": r.worker, "skills": workerSkills(w, &ws.skillCat)}, nil
	}, nil
}

// prepUpdateLocation is POST /portal/workers/me/location: stored as the worker's latitude and
// longitude (as workers.patch stores them), at most once per locationInterval.
func prepUpdateLocation(r *request) (op, *apiError) {
	var in struct {
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		if last, ok := ws.onboard.lastFix[r.worker]; ok && now.Sub(last) < locationInterval {
			e := errorf(http.StatusTooManyRequests, CodeRateLimited, "one location update per %s", locationInterval)
			e.retryAfter = int(math.Ceil((locationInterval - now.Sub(last)).Seconds()))
			return 0, nil, e
		}
		x := &workerExtra{}
		x.set("latitude", in.Latitude)
		x.set("longitude", in.Longitude)
		if _, _, aerr := ws.writeWorker(now, match.WorkerInput{ID: r.worker, Extra: x}, true); aerr != nil {
			return 0, nil, aerr
		}
		if ws.onboard.lastFix == nil {
			ws.onboard.lastFix = map[string]time.Time{}
		}
		ws.onboard.lastFix[r.worker] = now
		return http.StatusOK, map[string]any{"workerId": r.worker, "latitude": in.Latitude, "longitude": in.Longitude}, nil
	}, nil
}
