package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestConfigDefaults pins the defaults New gives a zero (or, for numbers, negative) field of
// Config, and that every value set is kept, 1 and the smallest duration included.
func TestConfigDefaults(t *testing.T) {
	defaults := Config{
		Mode: ModeBestMatch, Rules: RulesPlatform, CandidateWindow: 50, DefaultMaxBacklog: 9,
		OfferTimeout: 60 * time.Second, BalancedLoadPenalty: 1, EventIDPrefix: "evt_", DecisionIDPrefix: "dec_",
		MaxCandidates: 25, DecisionRetention: 10000,
		Learning: LearningConfig{LearnedVetoThreshold: -0.5, LearnedVetoMinSamples: 5, HalfLife: 7 * 24 * time.Hour},
	}
	set := Config{
		Mode: ModeFirstCome, Rules: RulesEveryTag, CandidateWindow: 1, DefaultMaxBacklog: 1,
		OfferTimeout: time.Nanosecond, BalancedLoadPenalty: 0.25, EventIDPrefix: "e", DecisionIDPrefix: "d",
		MaxCandidates: 1, DecisionRetention: 1, MaintenanceInterval: time.Second, ShuffleTies: true, Seed: 3,
		Learning: LearningConfig{LearnedVetoThreshold: 0.25, LearnedVetoMinSamples: 1, HalfLife: time.Nanosecond},
	}
	negative := Config{
		CandidateWindow: -1, DefaultMaxBacklog: -1, OfferTimeout: -time.Second, BalancedLoadPenalty: -1,
		MaxCandidates: -1, DecisionRetention: -1,
		Learning: LearningConfig{LearnedVetoMinSamples: -1, HalfLife: -time.Hour},
	}
	for _, tc := range []struct {
		name    string
		in, out Config
	}{
		{"zero", Config{}, defaults},
		{"negative", negative, defaults},
		{"set", set, set},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.out, New(tc.in).Config()); diff != "" {
				t.Errorf("Config (-want +got):\n%s", diff)
			}
		})
	}
}
