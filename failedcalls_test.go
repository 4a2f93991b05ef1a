package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// supervisorFor is a supervisor client for base with a session that does not expire soon.
func supervisorFor(t *testing.T, base string) *SupervisorClient {
	t.Helper()
	sv, err := NewSupervisorClient(base, WithMaxRetries(0))
	require.NoError(t, err)
	require.NoError(t, sv.SetSession("sv_1", time.Now().Add(time.Hour)))
	return sv
}

// ioMethod is one exported method of the client that takes a context first: a call that
// may reach the server.
type ioMethod struct {
	name string // e.g. "Tasks.Get" or "Worker.Me"
	fn   reflect.Value
}

// ioMethods lists the I/O methods of every service reachable from root (a *Client or a
// *WorkerClient): root's own, then those of each exported *...Service field, at any depth.
func ioMethods(prefix string, root reflect.Value) []ioMethod {
	var out []ioMethod
	typ := root.Type()
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		ft := m.Type // receiver first
		if ft.NumIn() < 2 || ft.In(1) != reflect.TypeFor[context.Context]() {
			continue
		}
		out = append(out, ioMethod{name: prefix + m.Name, fn: root.Method(i)})
	}
	elem := root.Elem()
	if elem.Kind() != reflect.Struct {
		return out
	}
	for i := range elem.NumField() {
		f := elem.Type().Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			continue
		}
		if v := elem.Field(i); !v.IsNil() {
			out = append(out, ioMethods(prefix+f.Name+".", v)...)
		}
	}
	return out
}

// argFor is an argument of type typ that passes the client's own checks where it can: an
// id-like string, a time, a positive number, the zero value of a parameter struct.
func argFor(ctx context.Context, typ reflect.Type) reflect.Value {
	switch {
	case typ == reflect.TypeFor[context.Context]():
		return reflect.ValueOf(ctx)
	case typ == reflect.TypeFor[time.Time]():
		return reflect.ValueOf(t0)
	case typ == reflect.TypeFor[time.Duration]():
		return reflect.ValueOf(time.Hour)
	case typ == reflect.TypeFor[io.Reader]():
		return reflect.ValueOf(io.Reader(strings.NewReader("x")))
	}
	if v, ok := validParams()[typ]; ok {
		return v
	}
	switch typ.Kind() {
	case reflect.String:
		return reflect.ValueOf("id_1").Convert(typ)
	case reflect.Int, reflect.Int64, reflect.Float64:
		return reflect.ValueOf(1).Convert(typ)
	case reflect.Slice:
		s := reflect.MakeSlice(typ, 1, 1)
		s.Index(0).Set(argFor(ctx, typ.Elem()))
		return s
	}
	return reflect.Zero(typ)
}

// argsOf holds, per method, the first arguments after ctx for the methods that take text
// other than ids (a path, a date).
var argsOf = map[string][]any{
	"Do":                  {"GET", "/tasks"},
	"Worker.Do":           {"GET", "/me"},
	"Supervisor.Do":       {"GET", "/supervisor/board"},
	"Workers.Offboarding": {"worker_1", "2026-11-30"},
}

// reportsPerEntry are the methods whose failures are reported entry by entry, not as the
// returned error.
var reportsPerEntry = map[string]string{
	"Tasks.CreateAll": "CreateAll reports each entry's failure; its error is for bad options or an ended context",
}

// validParams are parameter values the client's checks accept, by type: the bases of the
// limit sweep, and more for the calls it does not vary.
func validParams() map[reflect.Type]reflect.Value {
	out := map[reflect.Type]reflect.Value{}
	for _, sc := range sweepCases() {
		out[reflect.TypeOf(sc.base)] = reflect.ValueOf(sc.base)
	}
	for _, v := range []any{
		AssignTaskParams{WorkerID: "worker_1"},
		FailTaskParams{WorkerID: "worker_1"},
		SetBookingParams{WorkerID: "worker_1"},
		BookingsParams{From: t0, To: t0.Add(time.Hour)},
		UploadParams{Filename: "f.pdf", ContentType: "application/pdf"},
		WorkerUploadParams{Filename: "f.pdf", ContentType: "application/pdf"},
		FeedbackItem{TaskID: "task_1"},
		SkillLevel{SkillID: "skill_1", Level: 1},
		PushSubscriptionParams{Endpoint: "https://push.example/x", P256dh: "BPk", Auth: NewSecret("auth")},
	} {
		out[reflect.TypeOf(v)] = reflect.ValueOf(v)
	}
	return out
}

// Rule: a call the server refuses returns the error and nothing else: no value beside it
// (a nil pointer, a nil slice, a zero struct), and an iterator yields the error. Every
// I/O method of Client, WorkerClient and SupervisorClient is called, by reflection,
// against a server that answers every request 500, with arguments that pass the client's
// own checks, so each method's handling of the server's refusal is what is tested.
func TestEveryFailedCallReturnsOnlyItsError(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"code":"internal_error","message":"down"}}`)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
	w, err := NewWorkerClient(srv.URL+"/v1", WithMaxRetries(0))
	require.NoError(t, err)
	w.c.creds.set("wtok_1", "worker_1") // signed in, with no expiry to refresh
	sv := supervisorFor(t, srv.URL+"/v1")

	methods := append(ioMethods("", reflect.ValueOf(c)), ioMethods("Worker.", reflect.ValueOf(w))...)
	methods = append(methods, ioMethods("Supervisor.", reflect.ValueOf(sv))...)
	require.Greater(t, len(methods), 100, "the walk found too few methods")
	errType := reflect.TypeFor[error]()
	var sent []string
	for _, m := range methods {
		t.Run(m.name, func(t *testing.T) {
			if why, ok := reportsPerEntry[m.name]; ok {
				t.Skip(why)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ft := m.fn.Type()
			n := ft.NumIn()
			if ft.IsVariadic() {
				n-- // no options
			}
			args := make([]reflect.Value, n)
			for i := range n {
				args[i] = argFor(ctx, ft.In(i))
			}
			if fix, ok := argsOf[m.name]; ok {
				for i, v := range fix {
					args[i+1] = reflect.ValueOf(v)
				}
			}
			before := hits.Load()
			defer func() { // an iterator sends when ranged over, below
				if hits.Load() > before {
					sent = append(sent, m.name)
				}
			}()
			outs := m.fn.Call(args)
			last := outs[len(outs)-1]
			switch {
			case last.Type() == errType:
				if last.IsNil() {
					t.Fatalf("reported success for a call answered 500 (sent: %v)", hits.Load() > before)
				}
				assertServerError(t, last.Interface().(error))
				for i, o := range outs[:len(outs)-1] {
					if !o.IsZero() {
						t.Errorf("result %d beside the error is %#v, want its zero value", i, o.Interface())
					}
				}
			case last.Kind() == reflect.Func && last.Type().CanSeq2():
				yielded := 0
				for v, e := range last.Seq2() {
					yielded++
					if e.IsNil() {
						t.Fatalf("the iterator yielded %#v without an error", v.Interface())
					}
					assertServerError(t, e.Interface().(error))
					if !v.IsZero() {
						t.Errorf("the iterator yielded %#v beside its error", v.Interface())
					}
				}
				if yielded != 1 {
					t.Errorf("the iterator yielded %d times, want once (the error)", yielded)
				}
			default:
				t.Skipf("returns %v: no error to check", last.Type())
			}
		})
	}
	// Every method but those reporting per entry reached the server, so its own handling
	// of the refusal was tested (a new method whose arguments argFor cannot make pass the
	// client's checks gets them in validParams or argsOf).
	for _, m := range methods {
		if _, skip := reportsPerEntry[m.name]; !skip && !slices.Contains(sent, m.name) {
			t.Errorf("%s: refused before sending, so the server's refusal was not tested", m.name)
		}
	}
}

// assertServerError checks that err is the server's 500, not one of the client's own.
func assertServerError(t *testing.T, err error) {
	t.Helper()
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusInternalServerError {
		t.Errorf("got %v, want the server's 500", err)
	}
}

// notPathSegments are the string arguments (method/position, the context at 0) that are
// no path segment, so a dot segment is text to them, and some may be empty.
var notPathSegments = map[string]string{
	"Workers.Links/1":              "connector, an optional query filter",
	"Workers.Offboarding/2":        "lastDay, an optional query value",
	"Stats.SLA/1":                  "tag, an optional query filter",
	"Teams.Presence/1":             "teamID, an optional query filter",
	"Runs.FailStep/3":              "message, body text",
	"Worker.AddComment/2":          "body text",
	"Worker.PushUnsubscribe/1":     "endpoint, in the body",
	"Worker.RegisterDevice/1":      "token, in the body",
	"Worker.RegisterDevice/2":      "platform, in the body",
	"Worker.UnregisterDevice/1":    "token, in the body",
	"Supervisor.AcceptInvite/1":    "the invite's token, in the body",
	"Supervisor.PushUnsubscribe/1": "endpoint, in the body",
}

// meWhenEmpty are the path ids whose empty value means the signed-in worker.
var meWhenEmpty = map[string]bool{"Worker.Queue/1": true}

// Rule: every id a method puts in a path is checked before sending: empty or a dot segment
// ("." or "..", which a server would read as another path) is a *ParamError naming the
// parameter, and nothing is sent. Every string argument of every I/O method, by reflection.
func TestEveryPathIDIsCheckedBeforeSending(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
	w, err := NewWorkerClient(srv.URL+"/v1", WithMaxRetries(0))
	require.NoError(t, err)
	w.c.creds.set("wtok_1", "worker_1")
	sv := supervisorFor(t, srv.URL+"/v1")

	methods := append(ioMethods("", reflect.ValueOf(c)), ioMethods("Worker.", reflect.ValueOf(w))...)
	methods = append(methods, ioMethods("Supervisor.", reflect.ValueOf(sv))...)
	checked := 0
	for _, m := range methods {
		ft := m.fn.Type()
		n := ft.NumIn()
		if ft.IsVariadic() {
			n--
		}
		for pos := 1; pos < n; pos++ {
			if ft.In(pos).Kind() != reflect.String || strings.HasSuffix(m.name, "Do") {
				continue
			}
			name := fmt.Sprintf("%s/%d", m.name, pos)
			if _, ok := notPathSegments[name]; ok {
				continue
			}
			for _, bad := range []string{"", ".", ".."} {
				if bad == "" && meWhenEmpty[name] {
					continue
				}
				t.Run(fmt.Sprintf("%s=%q", name, bad), func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					args := make([]reflect.Value, n)
					for i := range n {
						args[i] = argFor(ctx, ft.In(i))
					}
					if fix, ok := argsOf[m.name]; ok {
						for i, v := range fix {
							args[i+1] = reflect.ValueOf(v)
						}
					}
					args[pos] = reflect.ValueOf(bad).Convert(ft.In(pos))
					before := hits.Load()
					outs := m.fn.Call(args)
					last := outs[len(outs)-1]
					var err error
					if last.Kind() == reflect.Func && last.Type().CanSeq2() {
						for _, e := range last.Seq2() {
							err, _ = e.Interface().(error)
							break
						}
					} else {
						err, _ = last.Interface().(error)
					}
					var pe *ParamError
					if !errors.As(err, &pe) {
						t.Fatalf("got %v, want a *ParamError", err)
					}
					if hits.Load() != before {
						t.Error("a refused call reached the server")
					}
				})
				checked++
			}
		}
	}
	require.Greater(t, checked, 100)
}
