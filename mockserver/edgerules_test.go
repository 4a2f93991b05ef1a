package mockserver

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signIn gives worker id an identity with a PIN and signs it in; it returns the session token.
func signIn(t *testing.T, srv *Server, id string) string {
	t.Helper()
	mustAPI(t, srv, 200, "POST", "/workers/"+id+"/identity", map[string]any{"label": "desk", "pin": "4921"})
	a := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": id, "pin": "4921"})
	require.Equal(t, 200, a.Status, "%s", a.Body)
	var login struct {
		Token string `json:"token"`
	}
	require.NoError(t, json.Unmarshal(a.Body, &login))
	return login.Token
}

// TestBookingAMissingTaskIsNotFound: tasks.booking.set on a task that does not exist answers
// 404 not_found, as every call naming a missing task does, not 409 invalid_state.
func TestBookingAMissingTaskIsNotFound(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}})
	a := api(t, srv, "POST", "/tasks/nosuch/booking", map[string]any{"workerId": "w1"})
	assert.Equal(t, 404, a.Status, "%s", a.Body)
	assert.Equal(t, CodeNotFound, a.errCode(t))
}

// TestBreaksOfARemovedWorkerAreUnauthorized: once its worker is removed, a session's break
// calls answer 401 unauthorized, as its other worker-plane calls do. Removing a worker
// revokes its sessions; a break call whose token was checked just before the removal ran
// meets the missing worker inside the operation, which answers the same 401.
func TestBreaksOfARemovedWorkerAreUnauthorized(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/portal/breaks/start", "/portal/breaks/end"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			srv := Start(t)
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}})
			token := signIn(t, srv, "w1")
			mustAPI(t, srv, 204, "DELETE", "/workers/w1", nil)
			a := call(t, srv, token, "POST", path, map[string]any{})
			assert.Equal(t, 401, a.Status, "%s", a.Body)
			assert.Equal(t, CodeUnauthorized, a.errCode(t))

			// The token passed, then the worker went: the operation itself refuses.
			req := &request{method: "POST", path: BasePath + path, workerPlane: true, worker: "w1", token: token, body: []byte("{}")}
			prep := prepEndBreak
			if path == "/portal/breaks/start" {
				prep = prepStartBreak
			}
			run, aerr := prep(req)
			require.Nil(t, aerr)
			resp := srv.exec(srv.sandbox(), req, run)
			assert.Equal(t, 401, resp.status, "%s", resp.body)
		})
	}
}

// TestRemovingOnePushRegistrationKeepsTheOthers: unsubscribing one browser endpoint, or
// unregistering one device, drops that registration only.
func TestRemovingOnePushRegistrationKeepsTheOthers(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}})
	token := signIn(t, srv, "w1")
	keys := map[string]string{"p256dh": "k", "auth": "a"}
	for _, ep := range []string{"https://push.example/1", "https://push.example/2"} {
		a := call(t, srv, token, "POST", "/portal/push/subscriptions", map[string]any{"endpoint": ep, "keys": keys})
		require.Equal(t, 200, a.Status, "%s", a.Body)
	}
	for _, tok := range []string{"dev1", "dev2"} {
		a := call(t, srv, token, "POST", "/portal/devices", map[string]any{"token": tok, "platform": "ios"})
		require.Equal(t, 200, a.Status, "%s", a.Body)
	}
	a := call(t, srv, token, "DELETE", "/portal/push/subscriptions", map[string]any{"endpoint": "https://push.example/1"})
	require.Equal(t, 204, a.Status, "%s", a.Body)
	a = call(t, srv, token, "DELETE", "/portal/devices", map[string]any{"token": "dev2"})
	require.Equal(t, 204, a.Status, "%s", a.Body)
	var left []string
	for _, r := range srv.PushRegistrations() {
		left = append(left, r.Kind+":"+r.Endpoint+r.Token)
	}
	assert.Empty(t, cmp.Diff([]string{"web:https://push.example/2", "device:dev1"}, left))
}

// TestProxyShadowCreatesTheDeploymentsTaskID: a task created through the proxy without an id
// is created in the shadow under the id the deployment chose, so both sides speak of one task.
func TestProxyShadowCreatesTheDeploymentsTaskID(t *testing.T) {
	rig := newProxyRig(t, RulesPlatform)
	require.Equal(t, 200, rig.call(t, "POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`))
	// A task created on the deployment directly moves its id sequence past the shadow's, so
	// the shadow would choose another id for the next task if it were left to.
	mustAPI(t, rig.upstream, 202, "POST", "/tasks", map[string]any{"tags": []string{"nobody"}})
	req, err := http.NewRequest("POST", rig.url+"/v1/tasks", strings.NewReader(`{"tags":["x"]}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+rig.upstream.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var created struct {
		ID string `json:"id"`
	}
	require.Equal(t, 202, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	require.NotEmpty(t, created.ID)
	require.NoError(t, rig.upstream.WaitForDeliveries(t.Context()))

	rep := rig.proxy.Report()
	assert.Empty(t, cmp.Diff([]ShadowComparison{{TaskID: created.ID, UpstreamWorker: "a1", MockWorker: "a1", Agree: true}}, rep.Decisions))
}

// TestCloseWarnsOfOneDroppedDelivery: closing with a single delivery still queued logs the
// drop at Warn, as it does for more.
func TestCloseWarnsOfOneDroppedDelivery(t *testing.T) {
	var sink bytes.Buffer
	d := newDeliverer([]string{"http://127.0.0.1:1/hook"}, "whsec_x", NewManualClock(t0), DeliveryPolicy{}, nil, nil)
	d.logger = slog.New(slog.NewJSONHandler(&sink, nil))
	d.pause() // no attempt starts: the event stays queued
	d.enqueue([]Event{{ID: "evt_1", Kind: "task.matched", Payload: json.RawMessage(`{}`)}})
	d.close()
	var rec struct {
		Level   string `json:"level"`
		Msg     string `json:"msg"`
		Dropped int    `json:"dropped"`
	}
	require.NoError(t, json.Unmarshal(sink.Bytes(), &rec), "%s", sink.Bytes())
	assert.Equal(t, "WARN", rec.Level, rec.Msg)
	assert.Equal(t, 1, rec.Dropped)
}
