package mockserver

import (
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// checkIssue is one finding of tasks.check.
type checkIssue struct {
	Severity string  `json:"severity"` // error: create would refuse; warning; info
	Code     string  `json:"code"`
	Message  string  `json:"message"`
	Tag      *string `json:"tag"`
}

type checkReport struct {
	EligibleWorkerCount int          `json:"eligibleWorkerCount"`
	EvaluatedAt         int64        `json:"evaluatedAt"`
	Issues              []checkIssue `json:"issues"`
	UncoveredTags       []string     `json:"uncoveredTags"`
}

// prepCheckTask answers POST /tasks/check: the create's checks, run without creating,
// counting or reserving anything. A body outside the schema is 400 as for a create (the
// contract check runs first); what a create would refuse beyond that comes back as issues of
// severity "error" with the code the create would answer (invalid_body, task_exists,
// plan_limit_exceeded, rate_limited). Warnings: nobody is eligible now (the task would wait
// in the queue). Info: a tag no worker carries.
func prepCheckTask(r *request) (op, *apiError) {
	var body createTaskBody
	if err := decodeBody(r.body, &body); err != nil {
		return nil, err
	}
	in, decodeErr := decodeTaskInput(&body)
	if decodeErr == nil {
		_, decodeErr = decodeRecurrence(body.Recurrence)
	}
	if decodeErr != nil && decodeErr.code != CodeInvalidBody {
		return nil, decodeErr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		rep := checkReport{EvaluatedAt: now.UnixMilli(), Issues: []checkIssue{}, UncoveredTags: []string{}}
		refuse := func(e *apiError) {
			rep.Issues = append(rep.Issues, checkIssue{Severity: "error", Code: e.code, Message: e.message})
		}
		if decodeErr != nil {
			refuse(decodeErr)
			return http.StatusOK, rep, nil
		}
		if in.ID != "" {
			if _, err := ws.engine.Task(in.ID); err == nil {
				refuse(conflictf(CodeTaskExists, "a task with this id already exists"))
			}
		}
		if lim := ws.limits.QueuedTasks; lim > 0 && ws.openTasks >= lim {
			refuse(planLimit("queued tasks", lim))
		}
		if lim := ws.limits.TaskRate; lim > 0 && !ws.rateStart.IsZero() && now.Before(ws.rateStart.Add(ws.limits.TaskRateWindow)) && ws.rateUsed >= lim {
			refuse(errorf(http.StatusTooManyRequests, CodeRateLimited, "task rate limit of %d per %s reached", lim, ws.limits.TaskRateWindow))
		}
		// The routing rules (requiredSkills, teams, place, network) count as the create's
		// would: a task no one qualifies for by them waits just as surely as an unknown tag.
		cands, err := ws.engine.SuggestWorkers(match.SuggestInput{Tags: in.Tags, Priority: in.Priority,
			VetoedWorkers: in.VetoedWorkers, SkillThresholds: in.SkillThresholds,
			Routing: ws.resolveTaskRouting(in.Routing), Limit: 100})
		if err != nil {
			refuse(matchError(err))
		}
		for _, c := range cands {
			if c.Eligible {
				rep.EligibleWorkerCount++
			}
		}
		if rep.EligibleWorkerCount == 0 {
			rep.Issues = append(rep.Issues, checkIssue{Severity: "warning", Code: "no_eligible_worker",
				Message: "no worker can take the task now; it would wait in the queue"})
		}
		for _, tag := range in.Tags {
			if ws.skillRefs[tag] == 0 {
				tag := tag
				rep.UncoveredTags = append(rep.UncoveredTags, tag)
				rep.Issues = append(rep.Issues, checkIssue{Severity: "info", Code: "uncovered_tag",
					Message: "no worker carries tag " + tag, Tag: &tag})
			}
		}
		return http.StatusOK, rep, nil
	}, nil
}
