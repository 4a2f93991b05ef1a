package taskrouting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Secrets with the characters encoders escape: <, > and & (Go's encoding/json), non-ASCII
// (Python's ensure_ascii), characters beyond the BMP (an escaped surrogate pair), a quote
// and a backslash.
const (
	escKey         = `sk_<live>&Kéy_😀_"q\_DoNotLeak`
	escWorkerToken = "wt_<tok>&Wörker_𝔘_DoNotLeak"
	escSupToken    = "sv_&<>_Süper_🙂_DoNotLeak"
	escPIN         = "😀<Pïn>&€9"
	escShortPIN    = "<&>ä" // shorter than minEcho: removed only whole
	escNewPIN      = "ß<new>&Ω𝄞"
	escJoinToken   = "jt_>&<_Jöin_🎟_DoNotLeak"
	escChannel     = "chs_<&>_Kanäl_📣_DoNotLeak"
	escPushAuth    = "pa_&<>_Äuth_🔑"
	escLink        = "sl_<>&_Lïnk_🔗_DoNotLeak"
)

// allEscaped is s with every character written as a \u escape (a surrogate pair beyond the
// BMP), as some JSON encoders write it.
func allEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// goJSON is s as Go's encoding/json writes it inside a string: <, > and & as \u003c, \u003e
// and \u0026.
func goJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b[1 : len(b)-1])
}

// pyJSON is s as Python's json.dumps writes it inside a string (ensure_ascii): every
// non-ASCII character as a \u escape, a surrogate pair beyond the BMP, upper case kept.
func pyJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case r > 0x7e || r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// someEscaped escapes every other character as \u (upper-case hex), leaving the rest as is:
// no encoder does this, and a scrub that looks for whole spellings misses it.
func someEscaped(s string) string {
	var b strings.Builder
	for i, r := range []rune(s) {
		switch {
		case i%2 == 1 && r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04X\u%04X`, r1, r2)
		case i%2 == 1:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// goQuoteASCII is s as %+q writes it inside the quotes: \u and \U escapes.
func goQuoteASCII(s string) string { q := strconv.QuoteToASCII(s); return q[1 : len(q)-1] }

// goQuote is s as %q writes it inside the quotes.
func goQuote(s string) string { q := strconv.Quote(s); return q[1 : len(q)-1] }

// head is the first n characters of s.
func head(s string, n int) string { r := []rune(s); return string(r[:min(n, len(r))]) }

// echoSpellings are the ways the test servers write a secret into an error message. Each
// gives the message's text as the client reads it (after decoding the envelope).
var echoSpellings = []struct {
	name  string
	spell func(string) string
}{
	{"as is", func(s string) string { return s }},
	{"Go JSON", goJSON},
	{"Go JSON in upper case", func(s string) string { return strings.ToUpper(goJSON(s)) }},
	{"Python JSON", pyJSON},
	{"every character escaped", allEscaped},
	{"every character escaped, upper case", func(s string) string { return strings.ToUpper(allEscaped(s)) }},
	{"some characters escaped", someEscaped},
	{"Go %q", goQuote},
	{"Go %+q", goQuoteASCII},
	{"Go JSON quoted again", func(s string) string { return goJSON(goJSON(s)) }},
	{"Python JSON quoted again", func(s string) string { return goJSON(pyJSON(s)) }},
	{"upper case", strings.ToUpper},
	{"lower case", strings.ToLower},
	{"cut short, Python JSON", func(s string) string { return pyJSON(head(s, minEcho)) }},
	{"cut short, Go JSON", func(s string) string { return goJSON(head(s, minEcho+1)) }},
	{"cut short, every character escaped", func(s string) string { return allEscaped(head(s, minEcho)) }},
}

// TestRedactSecretsSpellings: every spelling of a secret with characters encoders escape,
// and every piece of it from its start at least minEcho characters long, is replaced whole,
// leaving no escape residue; a secret shorter than that only whole.
func TestRedactSecretsSpellings(t *testing.T) {
	for _, secret := range []string{escKey, escPIN, escNewPIN, escShortPIN, escPushAuth, "a\\b\"c/d\te\nf", "ab\xffcd\xfeef", "\x01\a\b\f\r\v<&>", `tail<&\`,
		"k<udc00>ude01", // an escaped "<" followed by letters that read like a low surrogate's escape
	} {
		for _, sp := range echoSpellings {
			t.Run(fmt.Sprintf("%q/%s", secret, sp.name), func(t *testing.T) {
				echo := sp.spell(secret)
				got := redactSecrets("from "+echo+" and "+echo+".", []string{secret})
				assert.Equal(t, "from [redacted] and [redacted].", got, "echo %q", echo)
			})
		}
	}
}

// TestRedactSecretsEdges: what is not an echo is kept: a piece shorter than minEcho, a
// piece of a short secret, a surrogate pair whose low half is another character, an escape
// of another character.
func TestRedactSecretsEdges(t *testing.T) {
	const secret = "😀<Pïn>&€9" // 😀 < P ï n > & € 9
	tests := []struct{ name, in, want string }{
		{"minEcho characters", "x 😀<Pïn> y", "x [redacted] y"},
		{"one fewer", "x 😀<Pïn y", "x 😀<Pïn y"},
		{"one fewer, escaped", `x \ud83d\ude00\u003cP\u00efn y`, `x \ud83d\ude00\u003cP\u00efn y`},
		{"the secret and more", "x 😀<Pïn>&€9€9 y", "x [redacted]€9 y"},
		{"high surrogate with another low", `x \ud83d\ude01<Pïn>&€9 y`, `x \ud83d\ude01<Pïn>&€9 y`},
		{"high surrogate then a letter", `x \ud83dx<Pïn>&€9 y`, `x \ud83dx<Pïn>&€9 y`},
		{"a lone high surrogate", `x \ud83d<Pïn>&€9 y`, `x \ud83d<Pïn>&€9 y`},
		{"another character escaped", `x 😀\u003dPïn>&€9 y`, `x 😀\u003dPïn>&€9 y`},
		{"Go \\U escape", `x \U0001F600<Pïn>&€9 y`, "x [redacted] y"},
		{"Go \\U escape of another", `x \U0001F601<Pïn>&€9 y`, `x \U0001F601<Pïn>&€9 y`},
		{"Go \\x escape", `x 😀\x3cPïn>&€9 y`, "x [redacted] y"},
		{"escape cut off", `x 😀\u003`, `x 😀\u003`},
		{"high surrogate then a backslash at the very end", `x \ud83d\`, `x \ud83d\`},
		{"escape at the very end", `x 😀<Pïn>\`, "x [redacted]\\"},
		{"text ends with an escape of the last character", `x 😀<Pïn>&€\u0039`, "x [redacted]"},
		{"two echoes back to back", "😀<Pïn>&€9😀<PÏN>&€9", "[redacted][redacted]"},
		{"nothing", "nothing here", "nothing here"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, redactSecrets(tc.in, []string{secret}))
		})
	}
	short := []struct{ in, want string }{
		{"pin <&>ä refused", "pin [redacted] refused"},
		{`pin \u003c\u0026\u003e\u00e4 refused`, "pin [redacted] refused"},
		{"pin <&> refused", "pin <&> refused"},
		{`pin \u003c\u0026\u003e refused`, `pin \u003c\u0026\u003e refused`},
	}
	for _, tc := range short {
		assert.Equal(t, tc.want, redactSecrets(tc.in, []string{escShortPIN}), "%q", tc.in)
	}
	assert.Equal(t, "a [redacted] b", redactSecrets("a \xff\xfe b", []string{"\xff\xfe"}), "a secret of bytes that are not UTF-8")
	assert.Equal(t, "a [redacted] b", redactSecrets("a \ufffd\ufffd b", []string{"\xff\xfe"}), "as a JSON decoder replaces them")
	assert.Equal(t, `a [redacted] b`, redactSecrets(`a \xff\ufffd b`, []string{"\xff\xfe"}), "escaped")
	assert.Equal(t, "a \xff b", redactSecrets("a \xff b", []string{"\xff\xfe"}))
	assert.Equal(t, strings.Repeat(`\`, 4)+redactedMark, redactSecrets(strings.Repeat(`\`, 19)+pyJSON(secret), []string{secret}),
		"an escape's letter is looked for at most maxBackslashes backslashes on")
	assert.Equal(t, "x [redacted]", redactSecrets(`x ß<new>&Ω\U0001D11E`, []string{escNewPIN}), "text ends with a \\U escape")
	for _, tc := range []struct{ secret, in string }{
		{"https://h.example/x", `https:\/\/h.example\/x`}, // PHP's json_encode
		{"it's<a>&pin", `it\'s\u003ca\u003e\u0026pin`},    // a JavaScript string literal
	} {
		assert.Equal(t, "x [redacted] y", redactSecrets("x "+tc.in+" y", []string{tc.secret}), "%q", tc.in)
	}
	assert.Equal(t, "x [redacted] [redacted] y", redactSecrets("x 4921 SK_TEST_abcdefgh y", []string{"4921", "", "sk_test_abcdefgh"}), "every secret of the list")
}

// escapingEchoServer answers every request 400 with an envelope whose message quotes the
// bearer and every secret member of the body (at any depth) in the spelling the test sets.
// The envelope is written by Go's encoder, which escapes <, > and & once more.
func escapingEchoServer(t *testing.T, spell *func(string) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var echoes []string
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			echoes = append(echoes, (*spell)(tok))
		}
		body, _ := io.ReadAll(r.Body)
		var m any
		_ = json.Unmarshal(body, &m)
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				keys := make([]string, 0, len(v))
				for k := range v {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for _, k := range keys {
					if s, ok := v[k].(string); ok && slices.Contains([]string{"pin", "token", "currentPin", "newPin", "secret", "auth"}, k) {
						echoes = append(echoes, (*spell)(s))
					} else {
						walk(v[k])
					}
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			}
		}
		walk(m)
		env, _ := json.Marshal(map[string]any{"error": map[string]string{
			"code": "validation_failed", "message": "bad request from " + strings.Join(echoes, " and "),
		}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(env)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// secretCall is a call whose request carries secrets, and the secrets it carries.
type secretCall struct {
	secrets []string
	call    func(t *testing.T, base string, opts ...Option) error
}

// secretCalls are the calls that send a secret, by the parameter type (or credential) that
// carries it; TestEveryBodySecretIsScrubbed checks that each such type has one.
func secretCalls() map[string]secretCall {
	ctx := context.Background()
	worker := func(t *testing.T, base string, opts ...Option) *WorkerClient {
		w := newTestWorkerClient(t, base, opts...)
		w.c.creds.set(escWorkerToken, "agent_1")
		return w
	}
	supervisor := func(t *testing.T, base string, opts ...Option) *SupervisorClient {
		s, err := NewSupervisorClient(base, opts...)
		require.NoError(t, err)
		require.NoError(t, s.SetSession(escSupToken, time.Now().Add(time.Hour)))
		return s
	}
	client := func(t *testing.T, base string, opts ...Option) *Client {
		c, err := NewClient(base, escKey, opts...)
		require.NoError(t, err)
		return c
	}
	return map[string]secretCall{
		"API key": {[]string{escKey}, func(t *testing.T, base string, opts ...Option) error {
			_, err := client(t, base, opts...).Workers.List(ctx)
			return err
		}},
		"worker token": {[]string{escWorkerToken}, func(t *testing.T, base string, opts ...Option) error {
			_, err := worker(t, base, opts...).Me(ctx)
			return err
		}},
		"supervisor token": {[]string{escSupToken}, func(t *testing.T, base string, opts ...Option) error {
			_, err := supervisor(t, base, opts...).Overview(ctx)
			return err
		}},
		"supervisor link": {[]string{escLink}, func(t *testing.T, base string, opts ...Option) error {
			s, err := NewSupervisorClient(base, opts...)
			require.NoError(t, err)
			_, err = s.AcceptInvite(ctx, escLink)
			return err
		}},
		"WorkerLoginParams": {[]string{escPIN}, func(t *testing.T, base string, opts ...Option) error {
			_, err := newTestWorkerClient(t, base, opts...).Login(ctx, WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: NewSecret(escPIN)})
			return err
		}},
		"WorkerLoginParams, short PIN": {[]string{escShortPIN}, func(t *testing.T, base string, opts ...Option) error {
			_, err := newTestWorkerClient(t, base, opts...).Login(ctx, WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: NewSecret(escShortPIN)})
			return err
		}},
		"SetIdentityParams": {[]string{escKey, escPIN}, func(t *testing.T, base string, opts ...Option) error {
			_, err := client(t, base, opts...).Workers.SetIdentity(ctx, "agent_1", SetIdentityParams{Label: "desk 4", PIN: NewSecret(escPIN)})
			return err
		}},
		"UpdateIdentityParams": {[]string{escKey, escNewPIN}, func(t *testing.T, base string, opts ...Option) error {
			_, err := client(t, base, opts...).Workers.UpdateIdentity(ctx, "agent_1", UpdateIdentityParams{PIN: NewSecret(escNewPIN)})
			return err
		}},
		"JoinParams": {[]string{escPIN, escJoinToken}, func(t *testing.T, base string, opts ...Option) error {
			_, err := newTestWorkerClient(t, base, opts...).Join(ctx, JoinParams{Token: NewSecret(escJoinToken), Name: "Ada", PIN: NewSecret(escPIN)})
			return err
		}},
		"AcceptInviteParams": {[]string{escPIN, escJoinToken}, func(t *testing.T, base string, opts ...Option) error {
			_, err := newTestWorkerClient(t, base, opts...).AcceptInvite(ctx, AcceptInviteParams{Token: NewSecret(escJoinToken), PIN: NewSecret(escPIN)})
			return err
		}},
		"ChangePINParams": {[]string{escWorkerToken, escPIN, escNewPIN}, func(t *testing.T, base string, opts ...Option) error {
			return worker(t, base, opts...).ChangePIN(ctx, ChangePINParams{CurrentPIN: NewSecret(escPIN), NewPIN: NewSecret(escNewPIN)})
		}},
		"CreateNotificationChannelParams": {[]string{escKey, escChannel}, func(t *testing.T, base string, opts ...Option) error {
			_, err := client(t, base, opts...).Notifications.Channels.Create(ctx, CreateNotificationChannelParams{Type: "webhook", Target: "https://h.example", Events: []string{"task.created"}, Secret: NewSecret(escChannel)})
			return err
		}},
		"UpdateNotificationChannelParams": {[]string{escKey, escChannel}, func(t *testing.T, base string, opts ...Option) error {
			_, err := client(t, base, opts...).Notifications.Channels.Update(ctx, "ch_1", UpdateNotificationChannelParams{Secret: NewSecret(escChannel)})
			return err
		}},
		"PushSubscriptionParams": {[]string{escWorkerToken, escPushAuth}, func(t *testing.T, base string, opts ...Option) error {
			_, err := worker(t, base, opts...).PushSubscribe(ctx, PushSubscriptionParams{Endpoint: "https://push.example/x", P256dh: "BPk3", Auth: NewSecret(escPushAuth)})
			return err
		}},
		"PushSubscriptionParams, supervisor": {[]string{escSupToken, escPushAuth}, func(t *testing.T, base string, opts ...Option) error {
			return supervisor(t, base, opts...).PushSubscribe(ctx, PushSubscriptionParams{Endpoint: "https://push.example/x", P256dh: "BPk3", Auth: NewSecret(escPushAuth)})
		}},
	}
}

// TestErrorScrubsEscapedEchoes: a server over loopback that quotes the credentials and the
// secrets of the body back in its error message, in any of echoSpellings, leaves none of
// them in the error: Error(), every fmt verb on it, and the client's log lines (JSON and
// text handlers) show [redacted] where each was, and nothing of it around the mark.
func TestErrorScrubsEscapedEchoes(t *testing.T) {
	var spell func(string) string
	srv := escapingEchoServer(t, &spell)
	base := srv.URL + "/v1"
	for name, tc := range secretCalls() {
		for _, sp := range echoSpellings {
			t.Run(name+"/"+sp.name, func(t *testing.T) {
				spell = sp.spell
				logs := &syncBuffer{}
				jsonLog := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				textLog := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				err := tc.call(t, base, WithMaxRetries(0), WithLogger(jsonLog))
				require.Error(t, err)
				textLog.Info("call failed", "err", err)
				jsonLog.Info("call failed", "err", err)
				var apiErr *APIError
				require.True(t, errors.As(err, &apiErr), "%T", err)
				marks := make([]string, len(tc.secrets))
				for i := range marks {
					marks[i] = redactedMark
				}
				assert.Empty(t, cmp.Diff("bad request from "+strings.Join(marks, " and "), apiErr.Message), "message")
				outs := []string{err.Error(), logs.String()}
				for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					outs = append(outs, fmt.Sprintf(verb, err))
				}
				for _, out := range outs {
					for _, s := range tc.secrets {
						for _, leak := range []string{s, sp.spell(s), head(s, minEcho), goJSON(head(s, minEcho)), goQuote(head(s, minEcho))} {
							assert.NotContains(t, strings.ToLower(out), strings.ToLower(leak))
						}
					}
				}
			})
		}
	}
}

// TestEveryBodySecretIsScrubbed: every parameter type that carries a secret in a request
// body (the secret-holding types TestSecretTypesNeverShowTheirSecret finds, that have a wire
// form) has a call in secretCalls, so TestErrorScrubsEscapedEchoes covers it.
func TestEveryBodySecretIsScrubbed(t *testing.T) {
	calls := secretCalls()
	bodies := 0
	for name, sample := range secretSamples(t) {
		if _, ok := sample.v.(wireForm); !ok {
			continue
		}
		bodies++
		if _, ok := calls[name]; !ok {
			t.Errorf("%s carries a secret in a request body: add a call that sends it to secretCalls", name)
		}
	}
	assert.GreaterOrEqual(t, bodies, 9, "the parameter types with a wire form")
}

// TestSecretsIn: the secrets of a request's parameters are found wherever they are held.
func TestSecretsIn(t *testing.T) {
	type nested struct {
		S   Secret
		P   *Secret
		L   []Secret
		M   map[string]Secret
		A   any
		N   *nested
		Arr [1]Secret
		s   Secret
	}
	p := NewSecret("p")
	v := nested{S: NewSecret("s"), P: &p, L: []Secret{NewSecret("l"), {}}, M: map[string]Secret{"k": NewSecret("m")},
		A: NewSecret("a"), N: &nested{S: NewSecret("n")}, Arr: [1]Secret{NewSecret("arr")}, s: NewSecret("unexported")}
	got := secretsIn(v)
	slices.Sort(got)
	assert.Empty(t, cmp.Diff([]string{"a", "arr", "l", "m", "n", "p", "s"}, got))
	assert.Empty(t, secretsIn(nil))
	assert.Empty(t, secretsIn(nested{}))
}

// BenchmarkRedactSecrets: an error message of ordinary words, and one of backslashes only
// (each may start an escape), cost about the same per byte.
func BenchmarkRedactSecrets(b *testing.B) {
	for _, tc := range []struct{ name, text string }{
		{"64KiB of words", strings.Repeat("plain words of an error message ", 2048)},
		{"64KiB of backslashes", strings.Repeat(`\`, 64<<10)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				redactSecrets(tc.text, []string{escKey, escPIN})
			}
		})
	}
}

// TestRedactKeepsABadByteForAReplacementCharacter: a secret holding U+FFFD
// itself is echoed as that character (or its escape); a byte that is not
// UTF-8 in the text at that place is no spelling of it, and the text
// around it is kept.
func TestRedactKeepsABadByteForAReplacementCharacter(t *testing.T) {
	const secret = "ab\uFFFDcdefgh"
	tests := []struct{ name, in, want string }{
		{"the character", "x ab\uFFFDcdefgh y", "x [redacted] y"},
		{"its escape", `x ab\ufffdcdefgh y`, "x [redacted] y"},
		{"a bad byte in its place", "x ab\xffcdefgh y", "x ab\xffcdefgh y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, redactSecrets(tc.in, []string{secret}))
		})
	}
}
