package mockserver

import (
	"encoding/json"

	"github.com/taskrouting/taskrouting-go/internal/match"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// wireEvent is the flat webhook envelope (docs/contract.md, section 6): the kind in "event",
// then the event id, its time and the fields beside them. Field order is fixed by the struct
// so payloads are byte-for-byte reproducible.
type wireEvent struct {
	Event      string          `json:"event"`
	ID         string          `json:"id"`
	CreatedAt  int64           `json:"createdAt"`
	TaskID     string          `json:"taskId,omitempty"`
	WorkerID   string          `json:"workerId,omitempty"`
	DecisionID string          `json:"decisionId,omitempty"`
	MatchedAt  *int64          `json:"matchedAt,omitempty"`
	ExpiresAt  *int64          `json:"expiresAt,omitempty"`
	Priority   *float64        `json:"priority,omitempty"`
	Tags       []string        `json:"tags,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Level      *int            `json:"escalationLevel,omitempty"` // task.escalated
}

func toEvent(ev match.Event) Event {
	w := wireEvent{
		Event:     string(ev.Kind),
		ID:        ev.ID,
		CreatedAt: ev.At.UnixMilli(),
		TaskID:    ev.TaskID,
		WorkerID:  ev.WorkerID,
		Reason:    ev.Reason,
	}
	if ev.TaskID != "" {
		p := ev.Priority
		w.Priority, w.Tags = &p, ev.Tags
	}
	if ev.Kind == match.EventTaskMatched {
		m, x := ev.At.UnixMilli(), ev.ExpiresAt.UnixMilli()
		w.DecisionID, w.MatchedAt, w.ExpiresAt = ev.DecisionID, &m, &x
	}
	if ev.Kind == match.EventTaskEscalated {
		l := ev.Level
		w.Level = &l
	}
	if ev.Kind == match.EventTaskCompleted {
		w.Result = rawOrNull(ev.Result)
	}
	payload, err := json.Marshal(w)
	if err != nil {
		// Only a result that is not JSON could fail, and results arrive as validated JSON.
		payload, _ = json.Marshal(wireEvent{Event: w.Event, ID: w.ID, CreatedAt: w.CreatedAt, TaskID: w.TaskID, WorkerID: w.WorkerID})
	}
	return Event{ID: ev.ID, Kind: webhook.Kind(ev.Kind), CreatedAt: ev.At, TaskID: ev.TaskID, WorkerID: ev.WorkerID, Payload: payload}
}

// rawOrNull returns a stored JSON value, or null when nothing was stored.
func rawOrNull(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 {
		return raw
	}
	return json.RawMessage("null")
}
