package taskrouting

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// secretField names the fields that may hold a credential. A struct type holds a secret
// when one of its fields matches, or when a field's type (through pointers, slices and
// maps) is a type that holds one.
var secretField = regexp.MustCompile(`(?i)(pin|token|secret|auth|credential|apikey|password|creds|bearer|inviteurl|joinurl)`)

// notSecret are the exported types whose matching fields hold no credential, with why. A
// type named ...Service holds only the *Client it calls through (isService).
var notSecret = map[string]string{
	"AddCommentParams": "AuthorLabel is a display name",
	"Comment":          "Author is a display name",
	"WorkerIdentity":   "HasPIN says whether a PIN is set, never the PIN",
	"WorkerDevice":     "Token is the app's push address, which the platform lists back to the worker",
}

// isService: a service holds its client behind a pointer, which fmt prints as an address
// and encoding/json cannot reach (the field is unexported).
func isService(name string) bool { return strings.HasSuffix(name, "Service") }

// secretHolders scans the package's source for exported struct types that hold a secret.
func secretHolders(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	fields := map[string][]*ast.Field{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if ts, ok := n.(*ast.TypeSpec); ok {
					if st, ok := ts.Type.(*ast.StructType); ok {
						fields[ts.Name.Name] = st.Fields.List
					}
				}
				return true
			})
		}
	}
	holds := map[string]bool{}
	var typeName func(ast.Expr) string
	typeName = func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.StarExpr:
			return typeName(x.X)
		case *ast.ArrayType:
			return typeName(x.Elt)
		case *ast.MapType:
			return typeName(x.Value)
		}
		return ""
	}
	for changed := true; changed; {
		changed = false
		for name, fs := range fields {
			if _, ok := notSecret[name]; ok || holds[name] || isService(name) {
				continue
			}
			for _, f := range fs {
				match := holds[typeName(f.Type)]
				for _, n := range f.Names {
					match = match || secretField.MatchString(n.Name)
				}
				if match {
					holds[name], changed = true, true
					break
				}
			}
		}
	}
	var out []string
	for name := range holds {
		if ast.IsExported(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

const (
	testChannelSecret = "chs_5ecret_ChannelSecret_DoNotLeak_31d0"
	testPushAuth      = "pa_5ecret_PushAuth_DoNotLeak_0b7e"
	testICECredential = "ice_5ecret_Credential_DoNotLeak_5f2c"
)

var allTestSecrets = []string{testKey, testWorkerToken, testSupervisorToken, testPIN, testJoinToken,
	testChannelSecret, testPushAuth, testICECredential}

// secretSamples builds one value of every type that holds a secret, each secret set.
// reflectSafe: the secret stays hidden even where fmt reaches the value by reflection (an
// unexported field of the caller's struct), because it sits behind a pointer or a function.
func secretSamples(t *testing.T) map[string]struct {
	v           any
	reflectSafe bool
} {
	c, err := NewClient("https://api.example.com/v1", testKey)
	require.NoError(t, err)
	w, err := NewWorkerClient("https://api.example.com/v1")
	require.NoError(t, err)
	signIn(w)
	ice := ICEServer{URLs: []string{"turn:turn.example:3478"}, Username: "u", Credential: testICECredential}
	return map[string]struct {
		v           any
		reflectSafe bool
	}{
		"Client":                          {*c, true},
		"WorkerClient":                    {*w, true},
		"SupervisorClient":                {*signedInSupervisor(t, "https://api.example.com/v1"), true},
		"WorkerSession":                   {WorkerSession{WorkerID: "agent_1", token: func() string { return testWorkerToken }}, true},
		"WorkerLoginParams":               {WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: testPIN}, false},
		"SetIdentityParams":               {SetIdentityParams{Label: "desk 4", PIN: testPIN}, false},
		"UpdateIdentityParams":            {UpdateIdentityParams{Label: "desk 4", PIN: testPIN}, false},
		"JoinParams":                      {JoinParams{Token: testJoinToken, Name: "Ada", PIN: testPIN}, false},
		"AcceptInviteParams":              {AcceptInviteParams{Token: testJoinToken, PIN: testPIN}, false},
		"ChangePINParams":                 {ChangePINParams{CurrentPIN: testPIN, NewPIN: testPIN + "2"}, false},
		"CreateNotificationChannelParams": {CreateNotificationChannelParams{Type: "webhook", Target: "https://h.example", Events: []string{"task.created"}, Secret: testChannelSecret}, false},
		"UpdateNotificationChannelParams": {UpdateNotificationChannelParams{Secret: testChannelSecret}, false},
		"PushSubscriptionParams":          {PushSubscriptionParams{Endpoint: "https://push.example/x", P256dh: "BPk3", Auth: testPushAuth}, false},
		"ICEServer":                       {ice, false},
		"Invite":                          {Invite{Identity: WorkerIdentity{WorkerID: "agent_1"}, InviteURL: "https://portal.example/invite?token=" + testJoinToken}, false},
		"CreatedJoinLink":                 {CreatedJoinLink{Link: JoinLink{ID: "jl_1"}, JoinURL: "https://portal.example/join?token=" + testJoinToken}, false},
		"VoiceICE":                        {VoiceICE{ICEServers: []ICEServer{ice}, Raw: json.RawMessage(`[{"urls":"turn:x","credential":"` + testICECredential + `"}]`)}, false},
	}
}

// leaked returns the first secret out shows in clear, in another case or as hex.
func leaked(out string) string {
	low := strings.ToLower(out)
	flat := strings.ReplaceAll(low, " ", "")
	for _, s := range allTestSecrets {
		h := hex.EncodeToString([]byte(s))
		if strings.Contains(low, strings.ToLower(s)) || strings.Contains(flat, h) {
			return s
		}
	}
	return ""
}

// TestSecretTypesNeverShowTheirSecret enumerates every exported type that holds a secret
// (found by scanning the source, so a new one cannot be forgotten) and shows that no fmt
// verb, slog handler (text and JSON, the value nested in structs, slices and maps) or
// encoding/json shows the secret. Errors are TestErrorRedactsEchoedSecrets' part.
func TestSecretTypesNeverShowTheirSecret(t *testing.T) {
	samples := secretSamples(t)
	found := secretHolders(t)
	for _, name := range found {
		_, sampled := samples[name]
		if _, ok := notSecret[name]; !ok && !sampled {
			t.Errorf("%s holds a secret: give it redacting String, GoString, Format, LogValue and MarshalJSON and a sample here, or list it in notSecret with why", name)
		}
	}
	for name := range samples {
		if !slices.Contains(found, name) {
			t.Errorf("%s is sampled but the scan no longer finds a secret in it", name)
		}
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%10.3s", "% x", "%T%v"}
	for name, sample := range samples {
		x := sample.v
		t.Run(name, func(t *testing.T) {
			for _, m := range []struct {
				name string
				ok   bool
			}{{"LogValue", isA[slog.LogValuer](x)}, {"Format", isA[fmt.Formatter](x)}, {"GoString", isA[fmt.GoStringer](x)}} {
				if !m.ok && !sample.reflectSafe {
					t.Errorf("%s has no %s method of its own", name, m.name)
				}
			}
			ptr := pointerTo(x)
			contexts := map[string]any{
				"value": x, "pointer": ptr, "exported field": struct{ P any }{x},
				"slice": []any{x, ptr}, "map": map[string]any{"k": x, "p": ptr},
			}
			if sample.reflectSafe {
				contexts["unexported field"] = struct{ p any }{x}
			}
			for ctxName, v := range contexts {
				for _, verb := range verbs {
					if s := leaked(fmt.Sprintf(verb, v)); s != "" {
						t.Errorf("fmt %s of the %s shows %s", verb, ctxName, s)
					}
				}
			}
			for _, h := range []struct {
				name string
				new  func(*bytes.Buffer) slog.Handler
			}{
				{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
				{"JSON", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
			} {
				var buf bytes.Buffer
				slog.New(h.new(&buf)).Info("m", "value", x, "pointer", ptr,
					"slice", []any{x}, "map", map[string]any{"k": x},
					"struct", struct{ P any }{x}, slog.Group("g", "v", x))
				if s := leaked(buf.String()); s != "" {
					t.Errorf("slog %s handler shows %s: %s", h.name, s, buf.String())
				}
			}
			for ctxName, v := range map[string]any{"value": x, "slice": []any{x}, "map": map[string]any{"k": x}} {
				b, err := json.Marshal(v)
				if err == nil {
					if s := leaked(string(b)); s != "" {
						t.Errorf("encoding/json of the %s shows %s: %s", ctxName, s, b)
					}
				}
			}
		})
	}
}

// pointerTo returns a pointer to a copy of v, with v's dynamic type.
func pointerTo(v any) any {
	switch x := v.(type) {
	case Client:
		return &x
	case WorkerClient:
		return &x
	case SupervisorClient:
		return &x
	case WorkerSession:
		return &x
	case WorkerLoginParams:
		return &x
	case SetIdentityParams:
		return &x
	case UpdateIdentityParams:
		return &x
	case JoinParams:
		return &x
	case AcceptInviteParams:
		return &x
	case ChangePINParams:
		return &x
	case CreateNotificationChannelParams:
		return &x
	case UpdateNotificationChannelParams:
		return &x
	case PushSubscriptionParams:
		return &x
	case ICEServer:
		return &x
	case VoiceICE:
		return &x
	case Invite:
		return &x
	case CreatedJoinLink:
		return &x
	}
	panic(fmt.Sprintf("pointerTo: add %T", v))
}

func isA[T any](v any) bool { _, ok := v.(T); return ok }
