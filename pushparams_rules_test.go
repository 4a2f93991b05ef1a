package taskrouting

import (
	"errors"
	"testing"
)

// TestPushSubscriptionParamsRules: each of the endpoint, p256dh and auth members must be
// non-empty; one character is enough (api/openapi.json: minLength 1).
func TestPushSubscriptionParamsRules(t *testing.T) {
	ok := PushSubscriptionParams{Endpoint: "e", P256dh: "p", Auth: NewSecret("a")}
	for _, tc := range []struct {
		name  string
		edit  func(*PushSubscriptionParams)
		param string // "" when accepted
	}{
		{"one character each", func(*PushSubscriptionParams) {}, ""},
		{"no endpoint", func(p *PushSubscriptionParams) { p.Endpoint = "" }, "PushSubscriptionParams.Endpoint"},
		{"no p256dh", func(p *PushSubscriptionParams) { p.P256dh = "" }, "PushSubscriptionParams.P256dh"},
		{"no auth", func(p *PushSubscriptionParams) { p.Auth = NewSecret("") }, "PushSubscriptionParams.Auth"},
	} {
		p := ok
		tc.edit(&p)
		err := p.validate()
		var pe *ParamError
		switch {
		case tc.param == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tc.name, err)
		case tc.param != "" && (!errors.As(err, &pe) || pe.Param != tc.param):
			t.Errorf("%s: %v, want a *ParamError of %s", tc.name, err, tc.param)
		}
	}
}
