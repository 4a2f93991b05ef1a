//go:build !mockserver_drifthook

package mockserver

// driftHook is nil in every ordinary build; drifthook.go has the tagged seam.
func driftHook() func(opID string, body []byte) []byte { return nil }
