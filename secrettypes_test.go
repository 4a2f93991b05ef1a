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
// maps) is a type that holds one; Secret itself is one. An exported type's matching field
// must not be a plain string (secretHolders fails the test): it is a Secret.
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
	holds := map[string]bool{"Secret": true}
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
	for name, fs := range fields {
		if _, ok := notSecret[name]; ok || !ast.IsExported(name) {
			continue
		}
		for _, f := range fs {
			for _, n := range f.Names {
				if id, ok := f.Type.(*ast.Ident); ok && id.Name == "string" && secretField.MatchString(n.Name) {
					t.Errorf("%s.%s holds a secret in a plain string, which fmt prints from an unexported field of the caller's struct: make it a Secret", name, n.Name)
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

// secretSample is a value of a type that holds a secret, and the places a caller may keep
// it: each is printed and logged by the test.
type secretSample struct {
	v      any
	places map[string]any
}

// callerStruct is a caller's own struct, whose unexported fields fmt prints by reflection,
// without calling any method of the values in them.
type callerStruct[T any] struct {
	p  T
	ps []T
	pm map[string]T
	pp *T
	pa any
}

// sampleOf puts x in every place: itself, behind a pointer, in an exported and in an
// unexported field of the caller's struct, in slices and maps, directly and in those fields.
func sampleOf[T any](x T) secretSample {
	inCaller := callerStruct[T]{p: x, ps: []T{x}, pm: map[string]T{"k": x}, pp: &x, pa: x}
	return secretSample{v: x, places: map[string]any{
		"value":                      x,
		"pointer":                    &x,
		"exported field":             struct{ P T }{x},
		"slice":                      []T{x},
		"map":                        map[string]T{"k": x},
		"slice of any":               []any{x, &x},
		"map of any":                 map[string]any{"k": x, "p": &x},
		"unexported fields":          inCaller,
		"unexported fields, pointer": &inCaller,
		"unexported fields in slice": []callerStruct[T]{inCaller},
		"unexported fields in map":   map[string]callerStruct[T]{"k": inCaller},
		"unexported field of any":    struct{ p any }{x},
		"unexported slice of any":    struct{ p []any }{[]any{x}},
		"unexported map of any":      struct{ p map[string]any }{map[string]any{"k": x}},
		"nested unexported structure": struct {
			outer struct{ inner []map[string]T }
		}{struct{ inner []map[string]T }{[]map[string]T{{"k": x}}}},
	}}
}

// secretSamples builds one value of every type that holds a secret, each secret set.
func secretSamples(t *testing.T) map[string]secretSample {
	c, err := NewClient("https://api.example.com/v1", testKey)
	require.NoError(t, err)
	w, err := NewWorkerClient("https://api.example.com/v1")
	require.NoError(t, err)
	signIn(w)
	ice := ICEServer{URLs: []string{"turn:turn.example:3478"}, Username: "u", Credential: NewSecret(testICECredential)}
	return map[string]secretSample{
		"Secret":                          sampleOf(NewSecret(testPIN)),
		"Client":                          sampleOf(*c),
		"WorkerClient":                    sampleOf(*w),
		"SupervisorClient":                sampleOf(*signedInSupervisor(t, "https://api.example.com/v1")),
		"WorkerSession":                   sampleOf(WorkerSession{WorkerID: "agent_1", token: func() string { return testWorkerToken }}),
		"WorkerLoginParams":               sampleOf(WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: NewSecret(testPIN)}),
		"SetIdentityParams":               sampleOf(SetIdentityParams{Label: "desk 4", PIN: NewSecret(testPIN)}),
		"UpdateIdentityParams":            sampleOf(UpdateIdentityParams{Label: "desk 4", PIN: NewSecret(testPIN)}),
		"JoinParams":                      sampleOf(JoinParams{Token: NewSecret(testJoinToken), Name: "Ada", PIN: NewSecret(testPIN)}),
		"AcceptInviteParams":              sampleOf(AcceptInviteParams{Token: NewSecret(testJoinToken), PIN: NewSecret(testPIN)}),
		"ChangePINParams":                 sampleOf(ChangePINParams{CurrentPIN: NewSecret(testPIN), NewPIN: NewSecret(testPIN + "2")}),
		"CreateNotificationChannelParams": sampleOf(CreateNotificationChannelParams{Type: "webhook", Target: "https://h.example", Events: []string{"task.created"}, Secret: NewSecret(testChannelSecret)}),
		"UpdateNotificationChannelParams": sampleOf(UpdateNotificationChannelParams{Secret: NewSecret(testChannelSecret)}),
		"PushSubscriptionParams":          sampleOf(PushSubscriptionParams{Endpoint: "https://push.example/x", P256dh: "BPk3", Auth: NewSecret(testPushAuth)}),
		"ICEServer":                       sampleOf(ice),
		"Invite":                          sampleOf(Invite{Identity: WorkerIdentity{WorkerID: "agent_1"}, InviteURL: NewSecret("https://portal.example/invite?token=" + testJoinToken)}),
		"CreatedJoinLink":                 sampleOf(CreatedJoinLink{Link: JoinLink{ID: "jl_1"}, JoinURL: NewSecret("https://portal.example/join?token=" + testJoinToken)}),
		"VoiceICE":                        sampleOf(VoiceICE{ICEServers: []ICEServer{ice}, Raw: NewSecret(`[{"urls":"turn:x","credential":"` + testICECredential + `"}]`)}),
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
// verb, slog handler (text and JSON) or encoding/json shows the secret, wherever the value
// is kept: itself, behind a pointer, in slices and maps, and in an unexported field of the
// caller's struct, where fmt prints it by reflection without calling its methods. Errors
// are TestErrorRedactsEchoedSecrets' part.
func TestSecretTypesNeverShowTheirSecret(t *testing.T) {
	samples := secretSamples(t)
	found := secretHolders(t)
	for _, name := range found {
		if _, sampled := samples[name]; !sampled {
			t.Errorf("%s holds a secret: keep it in a Secret and add a sample here, or list the type in notSecret with why", name)
		}
	}
	for name := range samples {
		if !slices.Contains(found, name) {
			t.Errorf("%s is sampled but the scan no longer finds a secret in it", name)
		}
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%10.3s", "% x", "%T%v"}
	for name, sample := range samples {
		t.Run(name, func(t *testing.T) {
			for place, v := range sample.places {
				for _, verb := range verbs {
					if s := leaked(fmt.Sprintf(verb, v)); s != "" {
						t.Errorf("fmt %s of the %s shows %s", verb, place, s)
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
					slog.New(h.new(&buf)).Info("m", "v", v, slog.Group("g", "v", v))
					if s := leaked(buf.String()); s != "" {
						t.Errorf("slog %s handler of the %s shows %s: %s", h.name, place, s, buf.String())
					}
				}
				if b, err := json.Marshal(v); err == nil {
					if s := leaked(string(b)); s != "" {
						t.Errorf("encoding/json of the %s shows %s: %s", place, s, b)
					}
				}
			}
		})
	}
}
