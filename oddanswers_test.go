package taskrouting

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSessionCallsRefuseAnswersWithoutAToken: a session answer that carries no usable
// token is an error, and the client keeps the session it had (none, or the old token).
func TestSessionCallsRefuseAnswersWithoutAToken(t *testing.T) {
	ctx := context.Background()
	exp := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	t.Run("supervisor accept", func(t *testing.T) {
		srv, _ := serveOnce(t, 200, nil, `{"token":"","expiresAt":1795773600000}`)
		sc, err := NewSupervisorClient(srv.URL + "/v1")
		if err != nil {
			t.Fatal(err)
		}
		_, err = sc.AcceptInvite(ctx, "lt_1")
		if err == nil || !strings.Contains(err.Error(), "no usable token") {
			t.Errorf("err = %v, want no usable token", err)
		}
		if sc.SignedIn() {
			t.Error("signed in from an answer without a token")
		}
	})
	t.Run("worker refresh", func(t *testing.T) {
		srv, _ := serveOnce(t, 200, nil, `{"token":"bad token","workerId":"w1","expiresAt":1795773600000}`)
		wc, err := NewWorkerClient(srv.URL + "/v1")
		if err != nil {
			t.Fatal(err)
		}
		if err := wc.Resume("w1", "wt_old", exp); err != nil {
			t.Fatal(err)
		}
		ok, err := wc.Refresh(ctx)
		if ok || err == nil || !strings.Contains(err.Error(), "no usable token") {
			t.Errorf("Refresh = %t, %v; want false and no usable token", ok, err)
		}
		if got := wc.Session().Token(); got != "wt_old" {
			t.Errorf("token after a refused refresh %q, want the old one", got)
		}
	})
}

// TestSupervisorSignedOutAndUnacknowledged: Logout signed out sends nothing and returns
// nil; a push subscription the server does not acknowledge is an error.
func TestSupervisorSignedOutAndUnacknowledged(t *testing.T) {
	ctx := context.Background()
	srv, rec := serveOnce(t, 200, nil, `{"ok":false}`)
	sc, err := NewSupervisorClient(srv.URL + "/v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Logout(ctx); err != nil {
		t.Errorf("Logout signed out: %v", err)
	}
	if n := len(rec.all()); n != 0 {
		t.Fatalf("Logout signed out sent %d requests", n)
	}
	if err := sc.SetSession("sv_1", time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	err = sc.PushSubscribe(ctx, PushSubscriptionParams{Endpoint: "https://push.example.com/1", P256dh: "k", Auth: NewSecret("a")})
	if err == nil || !strings.Contains(err.Error(), "did not acknowledge") {
		t.Errorf("an answer of ok false: %v, want an error", err)
	}
}
