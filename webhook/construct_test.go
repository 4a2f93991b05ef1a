package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConstructEventNeverParsesUnverifiedBytes proves that both ConstructEvent forms leave a
// forged delivery unparsed, not merely that they report the signature error first. Parsing
// allocates and verifying allocates a fixed amount, so ConstructEvent of a forged delivery
// must allocate exactly what Verify of it does: an implementation that parsed first (and
// threw the result away) would allocate more. The body is a valid event, so a parser would
// run to the end on it.
func TestConstructEventNeverParsesUnverifiedBytes(t *testing.T) {
	now := time.Now()
	body := []byte(contractVectors[0].body)
	forged := Sign(body, "whsec_not_the_receivers", now)
	parseAllocs := testing.AllocsPerRun(50, func() { _, _ = ParseEvent(body) })
	require.Positive(t, parseAllocs, "ParseEvent must allocate for this proof to hold")
	v := mustVerifier(t, testSecret, fixedClock(now))

	tests := []struct {
		name      string
		verify    func() error
		construct func() (Event, error)
	}{
		{
			name:      "Verifier.ConstructEvent",
			verify:    func() error { return v.Verify(body, forged) },
			construct: func() (Event, error) { return v.ConstructEvent(body, forged) },
		},
		{
			name:      "ConstructEvent",
			verify:    func() error { return Verify(body, forged, testSecret) },
			construct: func() (Event, error) { return ConstructEvent(body, forged, testSecret) },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := tc.construct()
			assert.ErrorIs(t, err, ErrNoMatchingSignature)
			assert.Zero(t, ev, "a forged delivery yields no event")
			verifyAllocs := testing.AllocsPerRun(50, func() { _ = tc.verify() })
			constructAllocs := testing.AllocsPerRun(50, func() { _, _ = tc.construct() })
			assert.Equal(t, verifyAllocs, constructAllocs,
				"ConstructEvent of a forged delivery allocates more than verifying it: it parsed the body")
		})
	}
}
