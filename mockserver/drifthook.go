//go:build mockserver_drifthook

package mockserver

import (
	"bytes"
	"os"
)

// driftHook is the seam the standalone binary's tests build in (go build -tags
// mockserver_drifthook): with MOCKSERVER_DRIFT_OPERATION naming an operation id, that
// operation's answers gain a member the contract does not define, so a test can watch the
// binary refuse them over HTTP. Builds without the tag have no such seam (drifthook_off.go).
func driftHook() func(opID string, body []byte) []byte {
	target := os.Getenv("MOCKSERVER_DRIFT_OPERATION")
	if target == "" {
		return nil
	}
	return func(opID string, body []byte) []byte {
		if opID != target || !bytes.HasPrefix(body, []byte("{")) {
			return body
		}
		return append([]byte(`{"surprise":1,`), body[1:]...)
	}
}
