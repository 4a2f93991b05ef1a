package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testPIN is distinctive so a leak cannot hide among other digits.
const testPIN = "pin_Zq81x_DoNotLeak"

// TestWorkerSecretsNeverLeak runs the worker plane's error paths with a
// debug logger on and checks neither the session token nor the PIN appears
// in any error text, formatted value or log line, even when the server
// echoes them back.
func TestWorkerSecretsNeverLeak(t *testing.T) {
	logs := &syncBuffer{}
	ctx := context.Background()
	var errs []error
	record := func(err error) {
		t.Helper()
		if assert.Error(t, err) {
			errs = append(errs, err)
		}
	}
	opts := []Option{WithLogger(debugLogger(logs)), WithRetryWait(0, time.Millisecond)}
	login := WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: NewSecret(testPIN)}

	// A real sign-in adopts the token the server hands out.
	loginSrv, _ := serveOnce(t, 200, nil, `{"token":"`+testWorkerToken+`"}`)
	w := newTestWorkerClient(t, loginSrv.URL+"/v1", opts...)
	require.NoError(t, sessionErr(w.Login(ctx, login)))
	require.True(t, w.SignedIn())
	workers := []*WorkerClient{w}

	// A server can only echo what it was sent: the token on the calls that
	// carry it, the PIN on the calls whose body holds it.
	tokenEcho := func(tmpl string) string { return strings.ReplaceAll(tmpl, "SECRET", testWorkerToken) }
	pinEcho := func(tmpl string) string { return strings.ReplaceAll(tmpl, "SECRET", testPIN) }
	answers := []struct {
		status int
		body   string
	}{
		{401, `{"error":{"code":"unauthorized","message":"credential SECRET is revoked"}}`},
		{401, `{"error":{"code":"invalid_credentials","message":"SECRET is wrong"}}`},
		{400, `{"error":{"code":"validation_failed","message":"SECRET too long"}}`},
		{409, `{"error":{"code":"SECRET","message":"x"}}`},
		{503, `SECRET`},
		{200, `SECRET`}, // a 2xx that does not decode
	}
	for _, a := range answers {
		pinSrv, _ := serveOnce(t, a.status, nil, pinEcho(a.body))
		w := newTestWorkerClient(t, pinSrv.URL+"/v1", opts...)
		record(sessionErr(w.Login(ctx, login)))
		c := newTestClient(t, pinSrv.URL+"/v1", opts...)
		_, err := c.Workers.SetIdentity(ctx, "agent_1", SetIdentityParams{Label: "desk 4", PIN: NewSecret(testPIN)})
		record(err)

		tokenSrv, _ := serveOnce(t, a.status, nil, tokenEcho(a.body))
		w = newTestWorkerClient(t, tokenSrv.URL+"/v1", opts...)
		workers = append(workers, w)
		signIn(w)
		_, err = w.Me(ctx)
		record(err)
		_, err = w.StartBreak(ctx, StartBreakParams{Reason: "lunch"})
		record(err)
		_, err = w.Accept(ctx, "task_c3d4")
		record(err)
		_, err = w.AddComment(ctx, "task_c3d4", "done")
		record(err)
		_, err = w.Attachments.Create(ctx, "task_c3d4", WorkerCreateAttachmentParams{Filename: "a.txt", ContentType: "text/plain", SizeBytes: 1})
		record(err)
		if err := w.Logout(ctx); err != nil {
			record(err)
		}
	}

	// A sign-in answer whose token cannot be used must not be echoed.
	badToken, _ := serveOnce(t, 200, nil, `{"token":"`+testWorkerToken+`\n"}`)
	record(sessionErr(newTestWorkerClient(t, badToken.URL+"/v1", opts...).Login(ctx, login)))

	// Connection refused, a cancelled context, caller mistakes.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	down := newTestWorkerClient(t, closed.URL+"/v1", opts...)
	signIn(down)
	workers = append(workers, down)
	_, err := down.Me(ctx)
	record(err)
	record(sessionErr(down.Login(ctx, login)))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = down.Queue(cancelled, "")
	record(err)
	_, err = down.Me(ctx, WithHeader("Authorization", "Bearer "+testWorkerToken))
	record(err)
	record(sessionErr(down.Login(ctx, WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "", PIN: NewSecret(testPIN)})))

	var texts []string
	for _, err := range errs {
		texts = append(texts, err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			texts = append(texts, fmt.Sprintf("%#v", *apiErr))
		}
	}
	for _, w := range workers {
		texts = append(texts,
			fmt.Sprintf("%v", w), fmt.Sprintf("%+v", w), fmt.Sprintf("%#v", w),
			fmt.Sprintf("%v", *w), fmt.Sprintf("%+v", *w), fmt.Sprintf("%#v", *w))
		debugLogger(logs).Info("worker client", "client", w)
	}
	identity := SetIdentityParams{Label: "desk 4", PIN: NewSecret(testPIN)}
	texts = append(texts,
		fmt.Sprintf("%v", login), fmt.Sprintf("%+v", login), fmt.Sprintf("%#v", login), fmt.Sprint(&login),
		fmt.Sprintf("%v", identity), fmt.Sprintf("%+v", identity), fmt.Sprintf("%#v", identity))
	debugLogger(logs).Info("params", "login", login, "identity", identity)
	texts = append(texts, logs.String())

	for i, s := range texts {
		for _, secret := range []string{testWorkerToken, "WorkerToken_DoNotLeak", testPIN, "Zq81x"} {
			if strings.Contains(s, secret) {
				t.Errorf("text %d leaks %q: %s", i, secret, s)
			}
		}
	}
	log := logs.String()
	assert.Contains(t, log, `"status":401`, "the log sink saw no attempt lines; the test is not exercising logging")
	assert.Contains(t, log, `"token":"[redacted]"`, "WorkerClient.LogValue")
	assert.Contains(t, log, `"pin":"[redacted]"`, "params LogValue")
	assert.Contains(t, fmt.Sprintf("%v", login), "agent_1", "String keeps what is not secret")
}
