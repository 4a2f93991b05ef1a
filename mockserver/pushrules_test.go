package mockserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// A supervisor's browser subscription is stored for the supervisor, a second subscribe of the
// same endpoint keeps one entry with its first createdAt, and unsubscribing drops that
// supervisor's entry only: a worker subscribed with the same endpoint keeps theirs.
func TestSupervisorPushSubscriptions(t *testing.T) {
	clock := NewManualClock(t0)
	srv := Start(t, WithClock(clock))
	mustAPI(t, srv, http.StatusOK, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}})
	worker := signIn(t, srv, "w1")
	link, err := srv.InviteSupervisor(SupervisorInvite{})
	require.NoError(t, err)
	accept := call(t, srv, "", "POST", "/supervisor-auth/accept", map[string]any{"token": link.Token})
	require.Equal(t, http.StatusOK, accept.Status, "%s", accept.Body)
	sv := accept.json(t)["token"].(string)
	svID := link.SupervisorID
	require.NotEmpty(t, svID)

	keys := map[string]string{"p256dh": "k", "auth": "a"}
	subscribe := func(token, path, ep string) {
		t.Helper()
		a := call(t, srv, token, "POST", path, map[string]any{"endpoint": ep, "keys": keys})
		require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
	}
	subscribe(sv, "/supervisor/push/subscriptions", "https://push.example/1")
	subscribe(worker, "/portal/push/subscriptions", "https://push.example/1")
	clock.Advance(time.Minute)
	subscribe(sv, "/supervisor/push/subscriptions", "https://push.example/2")
	subscribe(sv, "/supervisor/push/subscriptions", "https://push.example/1")

	type reg struct {
		Plane, Owner, Endpoint string
		CreatedAt              time.Time
	}
	regs := func() []reg {
		var out []reg
		for _, r := range srv.PushRegistrations() {
			out = append(out, reg{r.Plane, r.OwnerID, r.Endpoint, r.CreatedAt})
		}
		return out
	}
	want := []reg{
		{"supervisor", svID, "https://push.example/1", t0},
		{"worker", "w1", "https://push.example/1", t0},
		{"supervisor", svID, "https://push.example/2", t0.Add(time.Minute)},
	}
	if d := cmp.Diff(want, regs()); d != "" {
		t.Errorf("after the subscribes (-want +got):\n%s", d)
	}
	a := call(t, srv, sv, "DELETE", "/supervisor/push/subscriptions", map[string]any{"endpoint": "https://push.example/1"})
	require.Equal(t, http.StatusNoContent, a.Status, "%s", a.Body)
	if d := cmp.Diff(want[1:], regs()); d != "" {
		t.Errorf("after the supervisor unsubscribed endpoint 1 (-want +got):\n%s", d)
	}
}
