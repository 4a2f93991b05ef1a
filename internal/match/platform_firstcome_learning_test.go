package match

import "testing"

// TestPlatformFirstComeWithLearningKeepsEachWorkersShare: under the platform rules, first-come
// with learning ranking on, each worker reached in a pass keeps at most its free backlog of
// its own ranked candidates, and keeps all of them when they fit, however many candidates
// the workers before it in the pass kept. Two idle workers with a backlog of 2 and one task:
// both rank each task in the same pass. Which of them claims first is the engine's race, so
// only the shares are checked: every task offered, neither worker past its backlog.
func TestPlatformFirstComeWithLearningKeepsEachWorkersShare(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform, Mode: ModeFirstCome, DefaultMaxBacklog: 2,
		Learning: LearningConfig{Rank: true, ExplorationRate: ptr(0.0)}})
	h.worker("w1", "a")
	h.worker("w2", "a")
	h.task("t1", "a")
	h.task("t2", "a")
	h.task("t3", "a")
	got := h.state()
	per := map[string]int{}
	for _, st := range got {
		per[st]++
	}
	if per["pending:w1"]+per["pending:w2"] != 3 || per["pending:w1"] > 2 || per["pending:w2"] > 2 {
		t.Errorf("state %v: want every task pending, at most 2 with each worker", got)
	}
}
