package main

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSetGCPercent holds -gc-percent's order: the flag when given, else the GOGC of the
// environment when set, else the binary's default of 400.
func TestSetGCPercent(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	for _, tc := range []struct {
		name    string
		env     string // "-": unset
		percent int
		given   bool
		want    int
	}{
		{"default", "-", defaultGCPercent, false, 400},
		{"flag", "-", 250, true, 250},
		{"flag over environment", "77", 250, true, 250},
		{"environment kept", "77", defaultGCPercent, false, 123},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.env)
			if tc.env == "-" {
				os.Unsetenv("GOGC")
			}
			debug.SetGCPercent(123) // what the runtime took from the environment at start
			setGCPercent(tc.percent, tc.given)
			assert.Equal(t, tc.want, debug.SetGCPercent(100))
		})
	}
}
