package taskrouting

import (
	"context"
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"time"
)

// CodeWorkerLinkConflict is the code of a 409 from WorkersService.Link: the
// connector's user is already linked to another worker.
const CodeWorkerLinkConflict = "worker_link_conflict"

// WorkerLink says who a worker is in a connected system: a CRM owner id,
// a tracker account id.
type WorkerLink struct {
	Connector    string    `json:"connector"` // "hubspot", "salesforce", "jira", ...
	VendorUserID string    `json:"vendorUserId"`
	WorkerID     string    `json:"workerId"`
	CreatedAt    time.Time `json:"-"` // wire createdAt, ISO-8601
}

// UnmarshalJSON reads the wire time.
func (l *WorkerLink) UnmarshalJSON(b []byte) error {
	type plain WorkerLink
	w := struct {
		*plain
		CreatedAt wireTime `json:"createdAt"`
	}{plain: (*plain)(l)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	l.CreatedAt = w.CreatedAt.t
	return nil
}

// LinkWorkerParams links a worker to a connector's user.
type LinkWorkerParams struct {
	VendorUserID string   `json:"vendorUserId"`   // required
	Tags         []string `json:"tags,omitempty"` // added to the worker's own tags, never replacing them
}

func (p LinkWorkerParams) validate() error {
	if err := checkLen("LinkWorkerParams.VendorUserID", p.VendorUserID, 1, math.MaxInt); err != nil {
		return err
	}
	for i, t := range p.Tags {
		if err := checkLen("LinkWorkerParams.Tags["+strconv.Itoa(i)+"]", t, 1, 64); err != nil {
			return err
		}
	}
	return nil
}

// Links returns the workspace's connector links, or only connector's when
// it is not "".
//
// API: workers.links, GET /workers/links
func (s *WorkersService) Links(ctx context.Context, connector string, opts ...RequestOption) ([]WorkerLink, error) {
	q := url.Values{}
	setIf(q, "connector", connector)
	var out struct {
		Links []WorkerLink `json:"links"`
	}
	if err := s.c.call(ctx, "GET", "/workers/links", q, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Links, nil
}

// Link makes or replaces the worker's link to connector. A vendor user
// already linked to another worker is a 409 with code
// CodeWorkerLinkConflict.
//
// API: workers.link, PUT /workers/{id}/links/{connector}
func (s *WorkersService) Link(ctx context.Context, workerID, connector string, p LinkWorkerParams, opts ...RequestOption) (*WorkerLink, error) {
	if err := s.c.admit(firstError(checkID("workerID", workerID), checkID("connector", connector), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(WorkerLink)
	if err := s.c.call(ctx, "PUT", escapePath("/workers/", workerID, "/links/", connector), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Unlink removes the worker's link to connector; the tags it added stay.
//
// API: workers.unlink, DELETE /workers/{id}/links/{connector}
func (s *WorkersService) Unlink(ctx context.Context, workerID, connector string, opts ...RequestOption) error {
	if err := s.c.admit(firstError(checkID("workerID", workerID), checkID("connector", connector)), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/workers/", workerID, "/links/", connector), nil, nil, nil, opts)
}

// OffboardingTasks is the work that goes back to the queue when a worker
// is removed.
type OffboardingTasks struct {
	Pending  int `json:"pending"`
	Accepted int `json:"accepted"`
	Booked   int `json:"booked"`
}

// OffboardingRoster is a roster that holds shifts of the worker after its
// last day.
type OffboardingRoster struct {
	RosterID  string `json:"rosterId"`
	Name      string `json:"name"`
	Published bool   `json:"published"`
	Shifts    int    `json:"shifts"`
}

// OffboardingSummary previews what removing a worker hands back; it
// changes nothing.
type OffboardingSummary struct {
	WorkerID       string              `json:"workerId"`
	LastDay        string              `json:"lastDay"` // YYYY-MM-DD
	Tasks          OffboardingTasks    `json:"tasks"`
	Rosters        []OffboardingRoster `json:"rosters"`
	CoverRequests  int                 `json:"coverRequests"`
	CoverOffers    int                 `json:"coverOffers"`
	Swaps          int                 `json:"swaps"`
	PendingTimeOff int                 `json:"pendingTimeOff"`
	LeavePolicies  int                 `json:"leavePolicies"`
	Teams          int                 `json:"teams"`
}

// Offboarding previews what removing a worker would hand back, with
// lastDay (YYYY-MM-DD) as its last working day; "" lets the server take
// today.
//
// API: workers.offboarding, GET /workers/{id}/offboarding
func (s *WorkersService) Offboarding(ctx context.Context, workerID, lastDay string, opts ...RequestOption) (*OffboardingSummary, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	if lastDay != "" {
		if _, err := time.Parse(time.DateOnly, lastDay); err != nil {
			return nil, &ParamError{Param: "lastDay", Problem: "must be a calendar date (YYYY-MM-DD)"}
		}
		q.Set("lastDay", lastDay)
	}
	out := new(OffboardingSummary)
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID, "/offboarding"), q, nil, out, opts); err != nil {
		return nil, err
	}
	if out.Rosters == nil {
		out.Rosters = []OffboardingRoster{}
	}
	return out, nil
}
