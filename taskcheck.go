package taskrouting

import (
	"context"
	"encoding/json"
	"time"
)

// TaskCheckIssue is one finding of a dry-run create.
type TaskCheckIssue struct {
	Severity string `json:"severity"` // "error" (create would refuse), "warning" or "info"
	Code     string `json:"code"`     // such as "task_exists", "no_eligible_worker"
	Message  string `json:"message"`
	Tag      string `json:"tag"` // the tag concerned; "" when null or absent
}

// UnmarshalJSON reads the nullable tag.
func (i *TaskCheckIssue) UnmarshalJSON(b []byte) error {
	type plain TaskCheckIssue
	w := struct {
		*plain
		Tag *string `json:"tag"`
	}{plain: (*plain)(i)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	i.Tag = nullToEmpty(w.Tag)
	return nil
}

// TaskCheckReport is what a create would do, without doing it.
type TaskCheckReport struct {
	EligibleWorkerCount int              `json:"eligibleWorkerCount"`
	EvaluatedAt         time.Time        `json:"-"` // wire evaluatedAt, the server's clock
	Issues              []TaskCheckIssue `json:"issues"`
	UncoveredTags       []string         `json:"uncoveredTags"` // tags no worker carries
}

// UnmarshalJSON reads the wire time.
func (r *TaskCheckReport) UnmarshalJSON(b []byte) error {
	type plain TaskCheckReport
	w := struct {
		*plain
		EvaluatedAt wireTime `json:"evaluatedAt"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.EvaluatedAt = w.EvaluatedAt.t
	return nil
}

// Errors returns the issues of severity "error": what Create would refuse.
func (r *TaskCheckReport) Errors() []TaskCheckIssue {
	var out []TaskCheckIssue
	for _, i := range r.Issues {
		if i.Severity == "error" {
			out = append(out, i)
		}
	}
	return out
}

// Check validates and explains a create without creating or reserving
// anything: safe to call on every change of a form. Input outside the
// platform's limits is a *ParamError, as for Create; what only the server
// can know (an id in use, nobody able to take the task) comes back as
// issues.
//
// API: tasks.check, POST /tasks/check
func (s *TasksService) Check(ctx context.Context, p CreateTaskParams, opts ...RequestOption) (*TaskCheckReport, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(TaskCheckReport)
	if err := s.c.admit(s.c.call(ctx, "POST", "/tasks/check", nil, p, out, opts), opts); err != nil {
		return nil, err
	}
	return out, nil
}
