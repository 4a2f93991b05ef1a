package taskrouting

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Rule: the onboarding bodies (an invite, an identity's creation and update, a join link)
// are held to api/openapi.json's limits before sending, and a refusal names the first
// field at fault and what is wrong with it: "must not be empty" for a missing required
// member (not a limit), a limit's range otherwise. Every branch of the four validators.
func TestOnboardingParamsRules(t *testing.T) {
	ok := ParamError{}
	empty := func(param string) ParamError { return ParamError{Param: param, Problem: "must not be empty"} }
	atMost := func(param string, n string) ParamError {
		return ParamError{Param: param, Problem: "must have at most " + n + " characters", Limit: true}
	}
	between := func(param, lo, hi string) ParamError {
		return ParamError{Param: param, Problem: "must be between " + lo + " and " + hi, Limit: true}
	}
	bare := func(param string) ParamError {
		return ParamError{Param: param, Problem: "must be a bare email address"}
	}
	skill := func(s SkillAssignment) []SkillAssignment { return []SkillAssignment{{SkillID: "ok", Level: 1}, s} }
	w101 := 101.0
	w100 := 100.0
	const email = "ada@example.com"
	s := strings.Repeat
	for _, tc := range []struct {
		name string
		p    interface{ validate() error }
		want ParamError
	}{
		// InviteParams
		{"invite: no email", InviteParams{Label: s("l", 129)}, empty("InviteParams.Email")},
		{"invite: email only", InviteParams{Email: email}, ok},
		{"invite: a display name", InviteParams{Email: "Ada <" + email + ">"}, bare("InviteParams.Email")},
		{"invite: the email's error comes first", InviteParams{Email: "ada", Label: s("l", 129)}, bare("InviteParams.Email")},
		{"invite: label of 128", InviteParams{Email: email, Label: s("l", 128)}, ok},
		{"invite: label of 129", InviteParams{Email: email, Label: s("l", 129)}, atMost("InviteParams.Label", "128")},
		{"invite: worker id of 128", InviteParams{Email: email, WorkerID: s("w", 128)}, ok},
		{"invite: worker id of 129", InviteParams{Email: email, WorkerID: s("w", 129)}, atMost("InviteParams.WorkerID", "128")},
		{"invite: worker id a dot segment", InviteParams{Email: email, WorkerID: ".."}, ParamError{Param: "InviteParams.WorkerID", Problem: "must not be a dot segment"}},
		{"invite: 64 tags", InviteParams{Email: email, Tags: make64("t")}, ok},
		{"invite: 65 tags", InviteParams{Email: email, Tags: append(make64("t"), "t")},
			ParamError{Param: "InviteParams.Tags", Problem: "must have at most 64 items", Limit: true}},
		{"invite: an empty tag", InviteParams{Email: email, Tags: []string{"t", ""}}, empty("InviteParams.Tags[1]")},
		{"invite: a tag of 65", InviteParams{Email: email, Tags: []string{s("t", 65)}}, atMost("InviteParams.Tags[0]", "64")},
		{"invite: 33 teams", InviteParams{Email: email, TeamIDs: strings.Split(s("x,", 32)+"x", ",")},
			ParamError{Param: "InviteParams.TeamIDs", Problem: "must have at most 32 items", Limit: true}},
		{"invite: a team id of 65", InviteParams{Email: email, TeamIDs: []string{"a", s("t", 65)}}, atMost("InviteParams.TeamIDs[1]", "64")},
		{"invite: an empty team id", InviteParams{Email: email, TeamIDs: []string{""}}, empty("InviteParams.TeamIDs[0]")},
		{"invite: level 5 and weight 100", InviteParams{Email: email, Skills: skill(SkillAssignment{SkillID: "s", Level: 5, WeightOverride: &w100})}, ok},
		{"invite: level 0", InviteParams{Email: email, Skills: skill(SkillAssignment{SkillID: "s"})}, between("InviteParams.Skills[1].Level", "1", "5")},
		{"invite: level 6", InviteParams{Email: email, Skills: skill(SkillAssignment{SkillID: "s", Level: 6})}, between("InviteParams.Skills[1].Level", "1", "5")},
		{"invite: no skill id", InviteParams{Email: email, Skills: skill(SkillAssignment{Level: 1})}, empty("InviteParams.Skills[1].SkillID")},
		{"invite: weight 101", InviteParams{Email: email, Skills: skill(SkillAssignment{SkillID: "s", Level: 1, WeightOverride: &w101})},
			between("InviteParams.Skills[1].WeightOverride", "0", "100")},
		{"invite: a skill's validUntil", InviteParams{Email: email, Skills: skill(SkillAssignment{SkillID: "s", Level: 1, ValidUntil: "2026-12-01"})},
			ParamError{Param: "InviteParams.Skills[1].ValidUntil", Problem: "is not taken here; set it with Workers.Patch once the worker exists"}},

		// SetIdentityParams
		{"set identity: label and PIN", SetIdentityParams{Label: "l", PIN: NewSecret("4921")}, ok},
		{"set identity: no label", SetIdentityParams{PIN: NewSecret("4921")}, empty("SetIdentityParams.Label")},
		{"set identity: PIN of 3", SetIdentityParams{Label: "l", PIN: NewSecret("492")},
			ParamError{Param: "SetIdentityParams.PIN", Problem: "must have at least 4 characters", Limit: true}},
		{"set identity: PIN of 257", SetIdentityParams{Label: "l", PIN: NewSecret(s("9", 257))}, atMost("SetIdentityParams.PIN", "256")},
		{"set identity: a bad email", SetIdentityParams{Label: "l", PIN: NewSecret("4921"), Email: "ada@"}, bare("SetIdentityParams.Email")},

		// UpdateIdentityParams
		{"update identity: nothing to change", UpdateIdentityParams{},
			ParamError{Param: "UpdateIdentityParams", Problem: "must change at least one member"}},
		{"update identity: label only", UpdateIdentityParams{Label: "l"}, ok},
		{"update identity: email only", UpdateIdentityParams{Email: Some(email)}, ok},
		{"update identity: email erased", UpdateIdentityParams{Email: Null[string]()}, ok},
		{"update identity: PIN only", UpdateIdentityParams{PIN: NewSecret("4921")}, ok},
		{"update identity: status only", UpdateIdentityParams{Status: "revoked"}, ok},
		{"update identity: active", UpdateIdentityParams{Status: "active"}, ok},
		{"update identity: an empty email", UpdateIdentityParams{Email: Some("")},
			ParamError{Param: "UpdateIdentityParams.Email", Problem: "must not be empty (use Null to erase it)"}},
		{"update identity: a bad email", UpdateIdentityParams{Email: Some("ada")}, bare("UpdateIdentityParams.Email")},
		{"update identity: label of 129", UpdateIdentityParams{Label: s("l", 129)}, atMost("UpdateIdentityParams.Label", "128")},
		{"update identity: PIN of 3", UpdateIdentityParams{PIN: NewSecret("492")},
			ParamError{Param: "UpdateIdentityParams.PIN", Problem: "must have at least 4 characters", Limit: true}},
		{"update identity: PIN of 256", UpdateIdentityParams{PIN: NewSecret(s("9", 256))}, ok},
		{"update identity: paused", UpdateIdentityParams{Status: "paused"},
			ParamError{Param: "UpdateIdentityParams.Status", Problem: `must be "active" or "revoked"`}},

		// CreateJoinLinkParams
		{"join link: no label", CreateJoinLinkParams{}, empty("CreateJoinLinkParams.Label")},
		{"join link: label only", CreateJoinLinkParams{Label: "l"}, ok},
		{"join link: team id of 65", CreateJoinLinkParams{Label: "l", TeamID: s("t", 65)}, atMost("CreateJoinLinkParams.TeamID", "64")},
		{"join link: an empty tag", CreateJoinLinkParams{Label: "l", Tags: []string{""}}, empty("CreateJoinLinkParams.Tags[0]")},
		{"join link: a skill's level", CreateJoinLinkParams{Label: "l", Skills: skill(SkillAssignment{SkillID: "s", Level: 6})},
			between("CreateJoinLinkParams.Skills[1].Level", "1", "5")},
		{"join link: 1 use", CreateJoinLinkParams{Label: "l", MaxUses: 1}, ok},
		{"join link: 10000 uses", CreateJoinLinkParams{Label: "l", MaxUses: 10_000}, ok},
		{"join link: 10001 uses", CreateJoinLinkParams{Label: "l", MaxUses: 10_001}, between("CreateJoinLinkParams.MaxUses", "1", "10000")},
		{"join link: -1 uses", CreateJoinLinkParams{Label: "l", MaxUses: -1}, between("CreateJoinLinkParams.MaxUses", "1", "10000")},
		{"join link: a minute", CreateJoinLinkParams{Label: "l", ExpiresIn: time.Minute}, ok},
		{"join link: 90 days", CreateJoinLinkParams{Label: "l", ExpiresIn: 90 * 24 * time.Hour}, ok},
		{"join link: 59.999 s", CreateJoinLinkParams{Label: "l", ExpiresIn: time.Minute - time.Millisecond},
			between("CreateJoinLinkParams.ExpiresIn", "60000", "7776000000")},
		{"join link: 90 days and 1 ms", CreateJoinLinkParams{Label: "l", ExpiresIn: 90*24*time.Hour + time.Millisecond},
			between("CreateJoinLinkParams.ExpiresIn", "60000", "7776000000")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.validate()
			var got ParamError
			if err != nil {
				var pe *ParamError
				require.True(t, errors.As(err, &pe), "got %v", err)
				got = *pe
			}
			diff(t, "refusal", tc.want, got)
		})
	}
}

// make64 is 64 copies of s.
func make64(s string) []string { return strings.Split(strings.Repeat(s+",", 63)+s, ",") }

// Rule: an identity update whose answer carries no identity is an error, not a nil
// identity with no error.
func TestUpdateIdentityAnswerWithoutIdentity(t *testing.T) {
	srv, _ := serveOnce(t, 200, nil, `{}`)
	c := newTestClient(t, srv.URL+"/v1")
	got, err := c.Workers.UpdateIdentity(context.Background(), "agent_1", UpdateIdentityParams{Label: "l"})
	assert.Nil(t, got)
	assert.EqualError(t, err, "taskrouting: PATCH /workers/agent_1/identity: the answer carried no identity")
}
