package match

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRouteIndexAgreesWithFullScan drives two engines with the same commands, one walking
// the route heaps (routeindex.go) and one scanning every ready carrier, with the rule mixes
// the property test does not make (team with a required skill, team with a preferred team,
// two required skills, a skill with a preferred team), and workers with weights above 1,
// weight overrides, expiring skills and learning. Every match and offer must agree.
func TestRouteIndexAgreesWithFullScan(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			// Few candidates, so that the walks stop early and a wrong bound shows.
			walk, scan := New(Config{Rules: RulesEveryTag, MaxCandidates: 2}), New(Config{Rules: RulesEveryTag, MaxCandidates: 2})
			scan.fullScan = true
			rng := rand.New(rand.NewPCG(seed, 7))
			now := t0
			pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
			var log []string
			run := func(what string, f func(e *Engine) (Result, error)) {
				now = now.Add(time.Duration(1+rng.IntN(20)) * time.Second)
				var got [2]string
				for i, e := range []*Engine{walk, scan} {
					res, err := f(e)
					var b strings.Builder
					fmt.Fprintf(&b, "%s err=%v", what, err)
					for _, ev := range res.Events {
						fmt.Fprintf(&b, " %s:%s:%s", ev.Kind, ev.TaskID, ev.WorkerID)
					}
					got[i] = b.String()
					if err := verifyInternal(e); err != nil {
						t.Fatalf("after %s: %v", what, err)
					}
				}
				if diff := cmp.Diff(got[1], got[0]); diff != "" {
					t.Fatalf("after %v\n%s: (-full scan +route walk):\n%s", log, what, diff)
				}
				log = append(log, got[0])
			}
			for i := range 40 {
				id := "w" + strconv.Itoa(i)
				in := WorkerInput{ID: id, Tags: []string{"x", pick("y", "z")}, Available: ptr(true), MaxBacklogSize: ptr(1 + rng.IntN(3)), Routing: randomWorkerRouting(rng, now)}
				if rng.IntN(4) == 0 {
					in.RoutingWeights = map[string]float64{pick("x", "y"): []float64{0.5, 2, 3}[rng.IntN(3)]}
				}
				run("worker "+id, func(e *Engine) (Result, error) { return e.UpsertWorker(now, in) })
			}
			routings := []func() *TaskRouting{
				func() *TaskRouting { return &TaskRouting{TeamID: pick("tA", "tB"), PreferTeamID: pick("tA", "tB")} },
				func() *TaskRouting {
					return &TaskRouting{TeamID: pick("tA", "tB"), RequiredSkills: []RequiredSkill{{ID: pick("s1", "s2"), MinLevel: 1 + rng.IntN(5)}}}
				},
				func() *TaskRouting {
					return &TaskRouting{PreferTeamID: pick("tA", "tB"), RequiredSkills: []RequiredSkill{{ID: pick("s1", "s2"), MinLevel: 1 + rng.IntN(5)}}}
				},
				func() *TaskRouting {
					return &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s1", MinLevel: 1 + rng.IntN(3)}, {ID: "s2", MinLevel: 1 + rng.IntN(3)}}}
				},
				func() *TaskRouting { return &TaskRouting{TeamID: pick("tA", "tB")} },
				func() *TaskRouting {
					return &TaskRouting{RequiredSkills: []RequiredSkill{{ID: pick("s1", "s2"), MinLevel: 1 + rng.IntN(5)}}}
				},
			}
			var pending []string
			for i := range 600 {
				switch rng.IntN(5) {
				case 0, 1:
					in := TaskInput{ID: "t" + strconv.Itoa(i), Tags: []string{"x"}, Routing: routings[rng.IntN(len(routings))]()}
					if rng.IntN(2) == 0 {
						in.Tags = append(in.Tags, pick("y", "z"))
					}
					pending = append(pending, in.ID)
					run("task "+in.ID, func(e *Engine) (Result, error) { return e.CreateTask(now, in) })
				case 2:
					id := "w" + strconv.Itoa(rng.IntN(40))
					r := randomWorkerRouting(rng, now)
					run("routing "+id, func(e *Engine) (Result, error) { return e.SetWorkerRouting(now, id, r) })
				default:
					if len(pending) == 0 {
						continue
					}
					k := rng.IntN(len(pending))
					tid := pending[k]
					tk, err := walk.Task(tid)
					if err != nil || tk.WorkerID == "" {
						continue
					}
					wid := tk.WorkerID
					switch {
					case tk.Status == StatusPending && rng.IntN(3) == 0:
						run("reject "+tid, func(e *Engine) (Result, error) { return e.Reject(now, tid, wid) })
					case tk.Status == StatusPending:
						run("accept "+tid, func(e *Engine) (Result, error) { return e.Accept(now, tid, wid) })
					case tk.Status == StatusAccepted:
						pending = append(pending[:k], pending[k+1:]...)
						run("complete "+tid, func(e *Engine) (Result, error) { return e.Complete(now, tid, wid, nil) })
					}
				}
			}
			if len(log) < 500 {
				t.Fatalf("only %d commands ran", len(log))
			}
		})
	}
}

func randomWorkerRouting(rng *rand.Rand, now time.Time) *WorkerRouting {
	r := &WorkerRouting{}
	for _, id := range []string{"s1", "s2"} {
		if rng.IntN(3) == 0 {
			continue
		}
		s := WorkerSkill{ID: id, Level: 1 + rng.IntN(5)}
		if rng.IntN(4) == 0 {
			s.Weight = ptr(float64(rng.IntN(120)))
		}
		if rng.IntN(5) == 0 {
			s.ValidUntil = now.Add(time.Duration(rng.IntN(900)) * time.Second)
		}
		r.Skills = append(r.Skills, s)
	}
	for _, team := range []string{"tA", "tB"} {
		if rng.IntN(2) == 0 {
			r.Teams = append(r.Teams, team)
		}
	}
	return r
}
