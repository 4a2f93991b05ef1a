package webhook

// Event kinds of the task clocks (SLA, schedule, escalation ladder), sent by
// the mock server; their names are decided by this project (docs/contract.md,
// section 6). They have no typed accessor: read "reason" and
// "escalationLevel" from Raw.
const (
	KindTaskEscalated Kind = "task.escalated" // the task took a step up its escalation ladder
	KindTaskParked    Kind = "task.parked"    // the task left matching until unparked
	KindTaskUnparked  Kind = "task.unparked"  // a parked task was queued again
	KindTaskFailed    Kind = "task.failed"    // the task failed: by its worker or its rejection budget
	KindTaskDropped   Kind = "task.dropped"   // the task expired: its SLA or schedule window ran out
	KindTaskQueued    Kind = "task.queued"    // a scheduled task reached its start and was queued
)

// Release reasons of the task clocks.
const (
	ReleaseSLA       ReleaseReason = "sla"       // the task's SLA shelf life ran out
	ReleaseSchedule  ReleaseReason = "schedule"  // the task's schedule window closed
	ReleaseEscalated ReleaseReason = "escalated" // the task was escalated by hand
)
