package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// notifySequence is one sequence as stored. Task events schedule its steps and the server's
// clock fires them (notifyfire.go).
type notifySequence struct {
	id, name             string
	enabled              bool
	steps                []sequenceStep
	filterTags           []string
	createdAt, updatedAt time.Time
}

// sequenceStep is a step as stored and answered; offsetMs is null when the step gave none.
type sequenceStep struct {
	Trigger   string `json:"trigger"`
	EventType string `json:"eventType"`
	OffsetMs  *int64 `json:"offsetMs"`
}

// sequenceAnswer is NotificationSequence in api/openapi.json.
type sequenceAnswer struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Enabled    bool           `json:"enabled"`
	Steps      []sequenceStep `json:"steps"`
	FilterTags []string       `json:"filterTags"`
	CreatedAt  string         `json:"createdAt"`
	UpdatedAt  string         `json:"updatedAt"`
}

func (q *notifySequence) answer() sequenceAnswer {
	tags := slices.Clone(q.filterTags)
	if tags == nil {
		tags = []string{}
	}
	return sequenceAnswer{ID: q.id, Name: q.name, Enabled: q.enabled, Steps: slices.Clone(q.steps),
		FilterTags: tags, CreatedAt: isoTime(q.createdAt), UpdatedAt: isoTime(q.updatedAt)}
}

func (st *notificationStore) sequence(id string) (int, *apiError) {
	i := slices.IndexFunc(st.sequences, func(q *notifySequence) bool { return q.id == id })
	if i < 0 {
		return -1, notFoundf("notification sequence %s not found", id)
	}
	return i, nil
}

// sequenceInput is the body of notifications.sequences.create and .update; the schema has
// already held it to its limits and refused unknown members (a step naming a channel is one).
type sequenceInput struct {
	Name    *string `json:"name"`
	Enabled *bool   `json:"enabled"`
	Steps   []struct {
		Trigger   string   `json:"trigger"`
		EventType string   `json:"eventType"`
		OffsetMs  *float64 `json:"offsetMs"`
	} `json:"steps"`
	FilterTags []string `json:"filterTags"`
}

// decodeSequence reads the body; a fractional offsetMs is kept to the whole millisecond,
// as the answer's integer offsetMs requires.
func decodeSequence(body []byte) (sequenceInput, []sequenceStep, *apiError) {
	var in sequenceInput
	if err := json.Unmarshal(body, &in); err != nil {
		return in, nil, invalidBodyf("body is not a JSON object")
	}
	if in.Steps == nil {
		return in, nil, nil
	}
	steps := make([]sequenceStep, len(in.Steps))
	for i, s := range in.Steps {
		steps[i] = sequenceStep{Trigger: s.Trigger, EventType: s.EventType}
		if s.OffsetMs != nil {
			ms := int64(*s.OffsetMs)
			steps[i].OffsetMs = &ms
		}
	}
	return in, steps, nil
}

// prepListSequences is GET /notification-sequences.
func prepListSequences(*request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := make([]sequenceAnswer, len(ws.notify.sequences))
		for i, q := range ws.notify.sequences {
			out[i] = q.answer()
		}
		return http.StatusOK, map[string][]sequenceAnswer{"sequences": out}, nil
	}, nil
}

// prepCreateSequence is POST /notification-sequences; a sequence is enabled unless the body
// says otherwise.
func prepCreateSequence(r *request) (op, *apiError) {
	in, steps, err := decodeSequence(r.body)
	if err != nil {
		return nil, err
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		q := &notifySequence{id: ws.newID("seq_"), name: *in.Name, enabled: true, steps: steps,
			filterTags: in.FilterTags, createdAt: now, updatedAt: now}
		if in.Enabled != nil {
			q.enabled = *in.Enabled
		}
		ws.notify.sequences = append(ws.notify.sequences, q)
		return http.StatusCreated, q.answer(), nil
	}, nil
}

// prepGetSequence is GET /notification-sequences/{id}.
func prepGetSequence(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i, err := ws.notify.sequence(id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, ws.notify.sequences[i].answer(), nil
	}, nil
}

// prepUpdateSequence is PATCH /notification-sequences/{id}: members sent replace the stored
// ones (steps as a whole), members left out stay; updatedAt moves on every update.
func prepUpdateSequence(r *request) (op, *apiError) {
	in, steps, err := decodeSequence(r.body)
	if err != nil {
		return nil, err
	}
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		i, err := ws.notify.sequence(id)
		if err != nil {
			return 0, nil, err
		}
		q := ws.notify.sequences[i]
		if in.Name != nil {
			q.name = *in.Name
		}
		if in.Enabled != nil {
			q.enabled = *in.Enabled
		}
		if steps != nil {
			q.steps = steps
		}
		if in.FilterTags != nil {
			q.filterTags = in.FilterTags
		}
		q.updatedAt = now
		return http.StatusOK, q.answer(), nil
	}, nil
}

// prepRemoveSequence is DELETE /notification-sequences/{id}.
func prepRemoveSequence(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i, err := ws.notify.sequence(id)
		if err != nil {
			return 0, nil, err
		}
		ws.notify.sequences = slices.Delete(ws.notify.sequences, i, i+1)
		return http.StatusNoContent, nil, nil
	}, nil
}
