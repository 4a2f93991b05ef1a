package mockserver

import (
	"net/http"
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// Connector links (docs/contract.md, "Connector links"): who a worker is in a connected
// system (a CRM owner id, a tracker account id). The mock stores them and answers them; no
// connector runs ("stored, not run"). One link per (worker, connector), and one worker per
// (connector, vendor user).

// CodeWorkerLinkConflict answers a link whose vendor user is already another worker's.
const CodeWorkerLinkConflict = "worker_link_conflict"

type workerLink struct {
	connector, vendorUserID, workerID string
	createdAt                         time.Time
}

// linkStore is a workspace's links in the order made. Its zero value is empty and usable.
type linkStore struct{ links []*workerLink }

func (st *linkStore) find(workerID, connector string) int {
	return slices.IndexFunc(st.links, func(l *workerLink) bool { return l.workerID == workerID && l.connector == connector })
}

// dropWorker forgets a removed worker's links.
func (st *linkStore) dropWorker(workerID string) {
	st.links = slices.DeleteFunc(st.links, func(l *workerLink) bool { return l.workerID == workerID })
}

type linkJSON struct {
	Connector    string `json:"connector"`
	VendorUserID string `json:"vendorUserId"`
	WorkerID     string `json:"workerId"`
	CreatedAt    string `json:"createdAt"`
}

func (l *workerLink) json() linkJSON {
	return linkJSON{Connector: l.connector, VendorUserID: l.vendorUserID, WorkerID: l.workerID, CreatedAt: isoTime(l.createdAt)}
}

// prepListLinks is GET /workers/links, optionally one connector's.
func prepListLinks(r *request) (op, *apiError) {
	connector := r.query.Get("connector")
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := []linkJSON{}
		for _, l := range ws.links.links {
			if connector == "" || l.connector == connector {
				out = append(out, l.json())
			}
		}
		return http.StatusOK, struct {
			Links []linkJSON `json:"links"`
		}{out}, nil
	}, nil
}

// prepLink is PUT /workers/{id}/links/{connector}: it makes or replaces the worker's link to
// the connector. A replaced link keeps its createdAt when the vendor user stays the same. The
// tags are added to the worker's own (a union, never a replace), under the plan limits of a
// worker write.
func prepLink(r *request) (op, *apiError) {
	var in struct {
		VendorUserID string   `json:"vendorUserId"`
		Tags         []string `json:"tags"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	workerID, connector := r.params[0], r.params[1]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		w, err := ws.engine.Worker(workerID)
		if err != nil {
			return 0, nil, matchError(err)
		}
		for _, l := range ws.links.links {
			if l.connector == connector && l.vendorUserID == in.VendorUserID && l.workerID != workerID {
				return 0, nil, conflictf(CodeWorkerLinkConflict, "%s user %s is already linked to worker %s", connector, in.VendorUserID, l.workerID)
			}
		}
		if added := newTags(w.Tags, in.Tags); len(added) > 0 {
			tags := append(slices.Clone(w.Tags), added...)
			if _, _, aerr := ws.writeWorker(now, match.WorkerInput{ID: workerID, Tags: tags}, true); aerr != nil {
				return 0, nil, aerr
			}
		}
		if i := ws.links.find(workerID, connector); i >= 0 {
			l := ws.links.links[i]
			if l.vendorUserID != in.VendorUserID {
				l.vendorUserID, l.createdAt = in.VendorUserID, now
			}
			return http.StatusOK, l.json(), nil
		}
		l := &workerLink{connector: connector, vendorUserID: in.VendorUserID, workerID: workerID, createdAt: now}
		ws.links.links = append(ws.links.links, l)
		return http.StatusOK, l.json(), nil
	}, nil
}

// newTags returns the tags of add not in have, each once, in the order given.
func newTags(have, add []string) []string {
	var out []string
	for _, t := range add {
		if !slices.Contains(have, t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// prepUnlink is DELETE /workers/{id}/links/{connector}; a link that does not exist is 404.
// The tags the link added stay: they are the worker's own now.
func prepUnlink(r *request) (op, *apiError) {
	workerID, connector := r.params[0], r.params[1]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i := ws.links.find(workerID, connector)
		if i < 0 {
			return 0, nil, notFoundf("worker %s has no %s link", workerID, connector)
		}
		ws.links.links = slices.Delete(ws.links.links, i, i+1)
		return http.StatusNoContent, nil, nil
	}, nil
}

type offboardingTasks struct {
	Pending  int `json:"pending"`
	Accepted int `json:"accepted"`
	Booked   int `json:"booked"`
}

type offboardingAnswer struct {
	WorkerID       string           `json:"workerId"`
	LastDay        string           `json:"lastDay"`
	Tasks          offboardingTasks `json:"tasks"`
	Rosters        []struct{}       `json:"rosters"`
	CoverRequests  int              `json:"coverRequests"`
	CoverOffers    int              `json:"coverOffers"`
	Swaps          int              `json:"swaps"`
	PendingTimeOff int              `json:"pendingTimeOff"`
	LeavePolicies  int              `json:"leavePolicies"`
	Teams          int              `json:"teams"`
}

// prepOffboarding is GET /workers/{id}/offboarding: what removing the worker would hand back,
// changing nothing. Pending counts the offers it holds, accepted the tasks it accepted and has
// not finished, booked its bookings of live tasks whose slot starts after lastDay; the mock has
// no rosters, cover, swaps or time off, so those are empty. lastDay defaults to today (UTC)
// and must be a calendar date.
func prepOffboarding(r *request) (op, *apiError) {
	lastDay := r.query.Get("lastDay")
	if lastDay != "" {
		if _, err := time.Parse(time.DateOnly, lastDay); err != nil {
			return nil, validationf("query/lastDay must be a calendar date (YYYY-MM-DD)")
		}
	}
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		w, err := ws.engine.Worker(workerID)
		if err != nil {
			return 0, nil, matchError(err)
		}
		day := lastDay
		if day == "" {
			day = now.UTC().Format(time.DateOnly)
		}
		end, _ := time.Parse(time.DateOnly, day)
		return http.StatusOK, offboardingAnswer{
			WorkerID: workerID, LastDay: day,
			Tasks: offboardingTasks{Pending: w.QueueDepth, Accepted: acceptedBy(ws.engine, workerID),
				Booked: ws.bookedAfter(workerID, end.AddDate(0, 0, 1))},
			Rosters: []struct{}{}, Teams: len(ws.teams.ofWorker(workerID)),
		}, nil
	}, nil
}

// acceptedBy counts the tasks a worker has accepted and not yet completed.
func acceptedBy(e *match.Engine, workerID string) int {
	n := 0
	q := match.TaskQuery{Status: match.FilterAccepted, Limit: 1000}
	for {
		page, err := e.Tasks(q)
		if err != nil {
			return n
		}
		for _, t := range page.Tasks {
			if t.WorkerID == workerID {
				n++
			}
		}
		if !page.HasMore || len(page.Tasks) == 0 {
			return n
		}
		q.After = page.Tasks[len(page.Tasks)-1].Seq
	}
}

// bookedAfter counts the worker's bookings of live tasks whose slot starts at or after from.
func (ws *workspace) bookedAfter(workerID string, from time.Time) int {
	n := 0
	for _, b := range ws.bookings.sorted() {
		if b.workerID != workerID || b.startAt.Before(from) {
			continue
		}
		if t, err := ws.engine.Task(b.taskID); err == nil && !t.Status.Terminal() {
			n++
		}
	}
	return n
}
