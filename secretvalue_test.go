package taskrouting

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSecretValue: a Secret reveals what it was made from, says whether it is set, compares
// by content (also through go-cmp), prints and marshals as [redacted] or "" when unset,
// and reads a JSON string.
func TestSecretValue(t *testing.T) {
	tests := []struct {
		name       string
		s          Secret
		reveal     string
		zero       bool
		str, goStr string
		json       string
	}{
		{"set", NewSecret("4921"), "4921", false, "[redacted]", `taskrouting.NewSecret("[redacted]")`, `"[redacted]"`},
		{"empty string", NewSecret(""), "", true, "", "taskrouting.Secret{}", `""`},
		{"zero value", Secret{}, "", true, "", "taskrouting.Secret{}", `""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{tc.s.Reveal(), tc.s.IsZero(), fmt.Sprint(tc.s), fmt.Sprintf("%#v", tc.s), string(b), tc.s.LogValue().String()}
			want := []any{tc.reveal, tc.zero, tc.str, tc.goStr, tc.json, tc.str}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}

	equal := []struct {
		a, b Secret
		want bool
	}{
		{NewSecret("4921"), NewSecret("4921"), true},
		{NewSecret("4921"), NewSecret("4922"), false},
		{NewSecret(""), Secret{}, true},
		{NewSecret("4921"), Secret{}, false},
	}
	for _, tc := range equal {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("Equal = %v, want %v", got, tc.want)
		}
		if got := cmp.Equal(WorkerLoginParams{PIN: tc.a}, WorkerLoginParams{PIN: tc.b}); got != tc.want {
			t.Errorf("cmp.Equal of params = %v, want %v", got, tc.want)
		}
	}

	var in struct {
		PIN  Secret `json:"pin"`
		None Secret `json:"none"`
	}
	if err := json.Unmarshal([]byte(`{"pin":"4921","none":null}`), &in); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]any{"4921", true}, []any{in.PIN.Reveal(), in.None.IsZero()}); d != "" {
		t.Errorf("decoded (-want +got):\n%s", d)
	}
	if err := json.Unmarshal([]byte(`{"pin":4921}`), &in); err == nil {
		t.Error("a number decoded into a Secret")
	}
}

// TestSecretOmitzero: an unset Secret is left out of a body under omitzero, and the
// request body the client sends carries the revealed value.
func TestSecretOmitzero(t *testing.T) {
	tests := []struct {
		name string
		p    UpdateIdentityParams
		json string // encoding/json, as a log shows it
		wire string // what the client sends
	}{
		{"unset", UpdateIdentityParams{Label: "desk 4"}, `{"label":"desk 4"}`, `{"label":"desk 4"}`},
		{"set", UpdateIdentityParams{PIN: NewSecret("4921")}, `{"pin":"[redacted]"}`, `{"pin":"4921"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logged, err := json.Marshal(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			sent, err := json.Marshal(tc.p.wireBody())
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{tc.json, tc.wire}, []string{string(logged), string(sent)}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
