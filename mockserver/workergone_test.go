package mockserver

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// Removing a worker ends its sessions, but a request whose token was checked just before a
// concurrent removal still reaches its operation: every worker-plane operation checks, under
// the workspace lock, that the signed-in worker exists, answers 401 when it does not, and
// stores nothing for it.
func TestWorkerOpsRefuseAWorkerRemovedMidRequest(t *testing.T) {
	srv, err := New(WithClock(NewManualClock(t0)), WithPushPublicKey("BPk"), WithVoiceICEServers([]byte(`[{"urls":"stun:stun.example"}]`)))
	require.NoError(t, err)
	defer srv.Close()
	ws := srv.workspaces[srv.keys[0]]
	sub := `{"endpoint":"https://push.example/1","keys":{"p256dh":"k","auth":"a"}}`
	tests := []struct {
		name string
		prep func(*request) (op, *apiError)
		body string
	}{
		{"worker.refresh", prepRefresh, ""},
		{"worker.changePin", prepChangePIN, `{"currentPin":"4921","newPin":"5555"}`},
		{"worker.setLocale", prepSetPreferences, `{"locale":"de"}`},
		{"worker.skillCatalog", prepSkillCatalog, ""},
		{"worker.setSkills", prepSetMySkills, `{"skills":[]}`},
		{"worker.updateLocation", prepUpdateLocation, `{"latitude":1,"longitude":2}`},
		{"worker.timeEntries", prepMyTimeEntries, ""},
		{"worker.metricsToday", prepMyMetricsToday, ""},
		{"worker.metricsWindow", prepMyMetricsWindow, ""},
		{"worker.breaksToday", prepMyBreaksToday, ""},
		{"worker.teamPresence", prepMyTeamPresence, ""},
		{"worker.voiceIce", srv.prepVoiceICE, ""},
		{"worker.pushConfig", srv.prepPushConfig, ""},
		{"worker.pushSubscribe", srv.prepWorkerSubscribe, sub},
		{"worker.pushUnsubscribe", srv.prepWorkerUnsubscribe, `{"endpoint":"https://push.example/1"}`},
		{"worker.registerDevice", srv.prepRegisterDevice, `{"token":"d1","platform":"ios"}`},
		{"worker.unregisterDevice", srv.prepUnregisterDevice, `{"token":"d1"}`},
	}
	type answer struct {
		Status        int
		Code, Message string
	}
	want := answer{401, CodeUnauthorized, "the signed-in worker no longer exists"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &request{workerPlane: true, worker: "gone", token: "wt_gone", query: url.Values{}, host: "127.0.0.1"}
			if tc.body != "" {
				r.body = []byte(tc.body)
			}
			run, aerr := tc.prep(r)
			require.Nil(t, aerr)
			ws.mu.Lock()
			status, _, aerr := run(ws, t0)
			ws.mu.Unlock()
			var got answer
			if aerr != nil {
				got = answer{aerr.status, aerr.code, aerr.message}
			} else {
				got.Status = status
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if regs := srv.PushRegistrations(); len(regs) != 0 {
		t.Errorf("push registrations stored for a removed worker: %+v", regs)
	}
}
