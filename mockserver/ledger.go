package mockserver

import (
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// ledger is what happened in a workspace, kept for the stats and history read-outs
// (stats.go, history.go): every offer with how it ended, and per task when it was accepted,
// completed or cancelled and by whom. It is written only from the matcher's events, in their
// order and with their times (the server's clock), so every number read from it can be
// worked out by hand from the same scenario. Guarded by the workspace lock; its zero value
// is empty and usable.
type ledger struct {
	offers []offerRecord
	tasks  map[string]*taskRecord
	open   map[string]int // task id -> number of its open offer (its index in offers + dropped)

	// retention bounds offers and tasks (retention.go); 0: no bound. dropped is how many
	// offers were trimmed from the front, order the task ids oldest first.
	retention int
	dropped   int
	order     []string
}

// offerRecord is one offer of a task to a worker.
type offerRecord struct {
	taskID, workerID string
	tags             []string
	at, expiresAt    time.Time
	outcome          match.EventKind // "" while open; else accepted, rejected, expired, released or cancelled
	endedAt          time.Time
}

// taskRecord is one task's milestones; a zero time has not happened.
type taskRecord struct {
	tags         []string
	offers       int
	firstOfferAt time.Time
	acceptedAt   time.Time
	completedAt  time.Time
	cancelledAt  time.Time
	workerID     string // who accepted it; for a cancel, who held it ("" if nobody)
	// closedBy counts the task's clock actions by the clock's name ("sla", "maxRejections",
	// "schedule", "escalation"): each task.parked, task.dropped or clock task.failed.
	closedBy map[string]int
	failedAt time.Time // failed by its worker (task.failed naming one)
}

func (l *ledger) task(ev *match.Event) *taskRecord {
	if l.tasks == nil {
		l.tasks, l.open = map[string]*taskRecord{}, map[string]int{}
	}
	tr := l.tasks[ev.TaskID]
	if tr == nil {
		tr = &taskRecord{tags: ev.Tags}
		l.tasks[ev.TaskID] = tr
		if l.retention > 0 {
			l.order = append(l.order, ev.TaskID)
			l.trimTasks()
		}
	}
	return tr
}

// closeOffer ends the task's open offer, if it has one, with the event's kind.
func (l *ledger) closeOffer(ev *match.Event, kind match.EventKind) {
	if i, ok := l.open[ev.TaskID]; ok {
		l.offers[i-l.dropped].outcome, l.offers[i-l.dropped].endedAt = kind, ev.At
		delete(l.open, ev.TaskID)
	}
}

// record takes one matcher event.
func (l *ledger) record(ev *match.Event) {
	switch ev.Kind {
	case match.EventTaskMatched:
		tr := l.task(ev)
		l.closeOffer(ev, match.EventTaskReleased) // an assign moves an offer: the old one ends
		if tr.offers == 0 {
			tr.firstOfferAt = ev.At
		}
		tr.offers++
		l.open[ev.TaskID] = l.dropped + len(l.offers)
		l.offers = append(l.offers, offerRecord{taskID: ev.TaskID, workerID: ev.WorkerID, tags: ev.Tags, at: ev.At, expiresAt: ev.ExpiresAt})
		l.trimOffers()
	case match.EventTaskAccepted:
		tr := l.task(ev)
		l.closeOffer(ev, ev.Kind)
		tr.acceptedAt, tr.workerID = ev.At, ev.WorkerID
	case match.EventTaskRejected, match.EventTaskExpired, match.EventTaskReleased:
		l.task(ev)
		l.closeOffer(ev, ev.Kind)
	case match.EventTaskCompleted:
		tr := l.task(ev)
		tr.completedAt, tr.workerID = ev.At, ev.WorkerID
	case match.EventTaskParked, match.EventTaskDropped, match.EventTaskFailed:
		tr := l.task(ev)
		l.closeOffer(ev, ev.Kind)
		if ev.Kind == match.EventTaskFailed && ev.WorkerID != "" {
			tr.failedAt, tr.workerID = ev.At, ev.WorkerID
			return
		}
		if tr.closedBy == nil {
			tr.closedBy = map[string]int{}
		}
		tr.closedBy[ev.Reason]++
	case match.EventTaskCancelled:
		tr := l.task(ev)
		if i, ok := l.open[ev.TaskID]; ok {
			tr.workerID = l.offers[i-l.dropped].workerID
		}
		l.closeOffer(ev, ev.Kind)
		tr.cancelledAt = ev.At
	}
}

// trimOffers keeps the newest offers (retention.go). An open offer that falls off is
// forgotten: its end is not counted.
func (l *ledger) trimOffers() {
	kept := keepNewest(l.offers, l.retention)
	if len(kept) == len(l.offers) {
		return
	}
	l.dropped += len(l.offers) - len(kept)
	l.offers = kept
	for id, i := range l.open {
		if i < l.dropped {
			delete(l.open, id)
		}
	}
}

// trimTasks keeps the milestones of the newest tasks (retention.go).
func (l *ledger) trimTasks() {
	kept := keepNewest(l.order, l.retention)
	if len(kept) == len(l.order) {
		return
	}
	for _, id := range l.order[:len(l.order)-len(kept)] {
		delete(l.tasks, id)
	}
	l.order = kept
}
