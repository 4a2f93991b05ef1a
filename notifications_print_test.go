package taskrouting

import (
	"fmt"
	"testing"
)

// TestUpdateNotificationChannelParamsPrint: the printed form of a channel update names what
// it changes, says "unchanged" for a Disabled left out, and never prints the secret.
func TestUpdateNotificationChannelParamsPrint(t *testing.T) {
	for _, tc := range []struct {
		p    UpdateNotificationChannelParams
		want string
	}{
		{UpdateNotificationChannelParams{}, `taskrouting.UpdateNotificationChannelParams{Type: "", Target: "", Events: 0 types, Secret: "", Disabled: unchanged}`},
		{UpdateNotificationChannelParams{Disabled: Ptr(true), Events: []string{"task.created"}},
			`taskrouting.UpdateNotificationChannelParams{Type: "", Target: "", Events: 1 types, Secret: "", Disabled: true}`},
		{UpdateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/x", Secret: NewSecret("whsec_new"), Disabled: Ptr(false)},
			`taskrouting.UpdateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/x", Events: 0 types, Secret: [redacted], Disabled: false}`},
	} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if got := fmt.Sprintf(verb, tc.p); got != tc.want {
				t.Errorf("%s:\n got %s\nwant %s", verb, got, tc.want)
			}
		}
	}
}
