package taskrouting

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// decoders are a value of every type of the package with its own UnmarshalJSON.
func decoders() map[string]json.Unmarshaler {
	return map[string]json.Unmarshaler{
		"ArchivedTask":         new(ArchivedTask),
		"Attachment":           new(Attachment),
		"AttachmentDownload":   new(AttachmentDownload),
		"AttachmentUpload":     new(AttachmentUpload),
		"BreakMetric":          new(BreakMetric),
		"BreakMetrics":         new(BreakMetrics),
		"BreakState":           new(BreakState),
		"BreaksToday":          new(BreaksToday),
		"Comment":              new(Comment),
		"CorrectedTimeEntry":   new(CorrectedTimeEntry),
		"Decision":             new(Decision),
		"Escalation":           new(Escalation),
		"FeedbackResult":       new(FeedbackResult),
		"FlowBucket":           new(FlowBucket),
		"ICEServer":            new(ICEServer),
		"JoinLink":             new(JoinLink),
		"MatchingSettings":     new(MatchingSettings),
		"NotificationChannel":  new(NotificationChannel),
		"NotificationSequence": new(NotificationSequence),
		"NotificationStep":     new(NotificationStep),
		"PortalLink":           new(PortalLink),
		"PresenceMember":       new(PresenceMember),
		"QueueAudit":           new(QueueAudit),
		"QueueAuditEntry":      new(QueueAuditEntry),
		"QueueStats":           new(QueueStats),
		"Reason":               new(Reason),
		"Recurrence":           new(Recurrence),
		"RecurringTask":        new(RecurringTask),
		"SLA":                  new(SLA),
		"SLAStats":             new(SLAStats),
		"Schedule":             new(Schedule),
		"Secret":               new(Secret),
		"Skill":                new(Skill),
		"SlotBooking":          new(SlotBooking),
		"SlotCandidate":        new(SlotCandidate),
		"SlotWindow":           new(SlotWindow),
		"StatsTimeseries":      new(StatsTimeseries),
		"SupervisorBoard":      new(SupervisorBoard),
		"SupervisorSession":    new(SupervisorSession),
		"Task":                 new(Task),
		"TaskCheckIssue":       new(TaskCheckIssue),
		"TaskCheckReport":      new(TaskCheckReport),
		"TaskContext":          new(TaskContext),
		"Team":                 new(Team),
		"TeamMember":           new(TeamMember),
		"TeamTime":             new(TeamTime),
		"TeamTimeDay":          new(TeamTimeDay),
		"TeamTimeTotals":       new(TeamTimeTotals),
		"TeamTimeWorker":       new(TeamTimeWorker),
		"TimeCorrection":       new(TimeCorrection),
		"TimeEntries":          new(TimeEntries),
		"TimeEntry":            new(TimeEntry),
		"TimeSlot":             new(TimeSlot),
		"TimeTotals":           new(TimeTotals),
		"WorkerBreak":          new(WorkerBreak),
		"WorkerBucket":         new(WorkerBucket),
		"WorkerDay":            new(WorkerDay),
		"WorkerDetail":         new(WorkerDetail),
		"WorkerHistory":        new(WorkerHistory),
		"WorkerIdentity":       new(WorkerIdentity),
		"WorkerLink":           new(WorkerLink),
		"WorkerMetricsWindow":  new(WorkerMetricsWindow),
		"WorkerPeriod":         new(WorkerPeriod),
		"WorkerProductivity":   new(WorkerProductivity),
		"WorkerProfile":        new(WorkerProfile),
		"WorkerTimeseries":     new(WorkerTimeseries),
		"Workflow":             new(Workflow),
		"WorkflowRun":          new(WorkflowRun),
		"WorkflowRunStep":      new(WorkflowRunStep),
		"WorkflowStep":         new(WorkflowStep),
		"durationMillis":       new(durationMillis),
		"looseTime":            new(looseTime),
		"wireTime":             new(wireTime),
	}
}

// Rule: an answer whose JSON does not have the shape of the type it is read into is an
// error, whatever type carries its own decoding: never a zero value read without one.
// Every type of the package with an UnmarshalJSON method (found in the source, so a new one
// must be added to decoders) is given a JSON array, which none of them is; only a history
// bound (looseTime) is lenient by design.
func TestEveryDecoderRefusesTheWrongShape(t *testing.T) {
	want := map[string]bool{}
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != "UnmarshalJSON" || fd.Recv == nil {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok {
					want[id.Name] = true
				}
			}
		}
	}
	got := decoders()
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s has an UnmarshalJSON but is not in decoders", name)
		}
	}
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		err := json.Unmarshal([]byte(`[1]`), got[name])
		if name == "looseTime" {
			// A history bound: the platform does not narrow its form, so an unreadable one
			// is left zero instead of failing the whole answer (history.go).
			if lt := got[name].(*looseTime); err != nil || !lt.t.IsZero() {
				t.Errorf("looseTime read [1] as %v, %v; want zero and no error", lt.t, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s read [1] without an error", name)
		}
	}
}
