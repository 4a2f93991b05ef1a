package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// explain prints why the matcher chose the worker: the decision named by the event, with every
// candidate it weighed, its score and its reasons (GET /decisions?taskId=...).
func (l *loop) explain(ctx context.Context, m webhook.TaskMatched) error {
	decisions, err := l.c.Decisions.List(ctx, taskrouting.ListDecisionsParams{TaskID: m.TaskID, Limit: 10})
	if err != nil {
		return fmt.Errorf("decisions for %s: %w", m.TaskID, err)
	}
	i := slices.IndexFunc(decisions, func(d taskrouting.Decision) bool { return d.ID == m.DecisionID })
	if i < 0 {
		fmt.Fprintf(l.out, "    (decision %s not found)\n", m.DecisionID)
		return nil
	}
	for _, cand := range decisions[i].Candidates {
		standing := "eligible"
		switch {
		case cand.Chosen:
			standing = "chosen"
		case !cand.Eligible:
			standing = "not eligible"
		}
		score := "           "
		if cand.Eligible {
			score = fmt.Sprintf("score %5.2f", cand.Score)
		}
		fmt.Fprintf(l.out, "      %-6s %-12s %s  %s\n", l.name(cand.WorkerID), standing, score, l.formatReasons(cand.Reasons))
	}
	return nil
}

// reason holds the members the service sends for the reason kinds this program prints; the
// kinds are additive, so an unknown one is printed by name.
type reason struct {
	Kind      string   `json:"kind"`
	Tag       string   `json:"tag"`
	Weight    *float64 `json:"weight"`
	Threshold *float64 `json:"threshold"`
	Factor    *float64 `json:"factor"`
	Penalty   *float64 `json:"penalty"`
	SkillID   string   `json:"skillId"`
}

func (l *loop) formatReasons(rs []taskrouting.Reason) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		var x reason
		if err := json.Unmarshal(r.Raw, &x); err != nil {
			x = reason{Kind: r.Kind}
		}
		if name, ok := l.skills[x.SkillID]; ok {
			x.SkillID = name
		}
		parts = append(parts, formatReason(x))
	}
	return strings.Join(parts, ", ")
}

func formatReason(r reason) string {
	switch {
	case r.Kind == "skillWeight" && r.Weight != nil:
		return fmt.Sprintf("skill %s +%s", r.SkillID, num(*r.Weight))
	case r.Kind == "missingSkill":
		return "missingSkill " + r.SkillID
	case r.Kind == "tagWeight" && r.Weight != nil:
		return fmt.Sprintf("%s x%s", r.Tag, num(*r.Weight))
	case r.Kind == "learningBoost" && r.Factor != nil:
		return "learning x" + strconv.FormatFloat(*r.Factor, 'f', 2, 64)
	case r.Kind == "threshold" && r.Weight != nil && r.Threshold != nil:
		return fmt.Sprintf("%s weight %s below threshold %s", r.Tag, num(*r.Weight), num(*r.Threshold))
	case r.Kind == "loadPenalty" && r.Penalty != nil:
		return "load penalty " + num(*r.Penalty)
	case r.Tag != "":
		return r.Kind + " " + r.Tag
	}
	return r.Kind
}

func formatWeights(w map[string]float64) string {
	if len(w) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + num(w[k])
	}
	return strings.Join(parts, " ")
}

// reaches says which of a task's tags can make the worker a candidate: every tag it carries
// without routing weights (each scoring its share of the worker's tags), only the weighted ones
// with them.
func reaches(w workerSpec) string {
	if len(w.Weights) == 0 {
		return fmt.Sprintf("reaches every tag it carries (each scores 1/%d)", len(w.Tags))
	}
	var only, not []string
	for _, t := range w.Tags {
		if w.Weights[t] > 0 {
			only = append(only, t)
		} else {
			not = append(not, t)
		}
	}
	s := "reaches " + strings.Join(only, ",")
	if len(not) > 0 {
		s += " only: " + strings.Join(not, ",") + " is not weighted"
	}
	return s
}

// num prints a weight with at most two decimals (a tags-only worker's share of 1/3 is 0.33).
func num(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(f, 'f', 2, 64), "0"), ".")
}

// whyQueued says why a task waits, with the platform's own dry runs: tasks.check names the
// tags no worker carries, and tasks.suggestWorkers what keeps each carrier from the task (the
// reasons a decision would record), e.g. "nearest workers: ana backlogFull; dev unavailable".
// A task read does not carry its required skills (the platform's does not), so the caller
// passes them.
func (l *loop) whyQueued(ctx context.Context, t *taskrouting.Task, required []taskrouting.RequiredSkill) (string, error) {
	check, err := l.c.Tasks.Check(ctx, taskrouting.CreateTaskParams{Tags: t.Tags, Priority: t.Priority, RequiredSkills: required})
	if err != nil {
		return "", fmt.Errorf("check task %s: %w", t.ID, err)
	}
	if len(check.UncoveredTags) > 0 {
		return "no worker carries " + strings.Join(check.UncoveredTags, ", "), nil
	}
	sug, err := l.c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{Tags: t.Tags, Priority: &t.Priority,
		RequiredSkills: required, Limit: 5})
	if err != nil {
		return "", fmt.Errorf("suggest workers for %s: %w", t.ID, err)
	}
	var parts []string
	for _, w := range sug.Workers {
		var lacks []string
		for _, r := range w.Reasons {
			switch r.Kind {
			case taskrouting.ReasonTagWeight, taskrouting.ReasonLearningBoost, taskrouting.ReasonLoadPenalty,
				taskrouting.ReasonSkillWeight, taskrouting.ReasonPreferredTeam:
				continue // parts of a score, not refusals
			case taskrouting.ReasonMissingTag:
				lacks = append(lacks, r.Kind+" "+r.Tag)
			case taskrouting.ReasonMissingSkill:
				lacks = append(lacks, r.Kind+" "+l.skills[r.SkillID])
			default:
				lacks = append(lacks, r.Kind)
			}
		}
		if len(lacks) == 0 {
			lacks = []string{"eligible, other tasks first"}
		}
		parts = append(parts, l.name(w.WorkerID)+" "+strings.Join(lacks, ", "))
	}
	if len(parts) == 0 {
		return "no eligible worker is free", nil
	}
	return "nearest workers: " + strings.Join(parts, "; "), nil
}
