package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// notificationStore is a workspace's notification channels and sequences, each in creation
// order (the order list answers in); its zero value is empty and usable. Guarded by the
// workspace's lock. Sequences and channels are independent: a step names an event type,
// and a channel subscribes to event types, so neither refers to the other by id.
type notificationStore struct {
	channels  []*notifyChannel
	sequences []*notifySequence
	pending   []pendingNotice // sequence steps waiting for their time (notifyfire.go)
	noticeSeq uint64
	moved     bool
}

// notifyChannel is one channel as stored. secret is kept (a rotation replaces it) and never
// part of an answer.
type notifyChannel struct {
	id, kind, target string
	events           []string
	secret           string
	disabled         bool
	createdAt        time.Time
}

// channelAnswer is NotificationChannel in api/openapi.json.
type channelAnswer struct {
	ID        string   `json:"id"`
	Type      string   `json:"type"`
	Target    string   `json:"target"`
	Events    []string `json:"events"`
	Disabled  bool     `json:"disabled"`
	CreatedAt string   `json:"createdAt"`
}

func (ch *notifyChannel) answer() channelAnswer {
	return channelAnswer{ID: ch.id, Type: ch.kind, Target: ch.target, Events: slices.Clone(ch.events),
		Disabled: ch.disabled, CreatedAt: isoTime(ch.createdAt)}
}

func (st *notificationStore) channel(id string) (int, *apiError) {
	i := slices.IndexFunc(st.channels, func(ch *notifyChannel) bool { return ch.id == id })
	if i < 0 {
		return -1, notFoundf("notification channel %s not found", id)
	}
	return i, nil
}

// channelInput is the body of notifications.channels.create and .update; the schema has
// already held it to its limits and refused unknown members. Absent members stay nil.
type channelInput struct {
	Type     *string  `json:"type"`
	Target   *string  `json:"target"`
	Events   []string `json:"events"`
	Secret   *string  `json:"secret"`
	Disabled *bool    `json:"disabled"`
}

func decodeChannel(body []byte) (channelInput, *apiError) {
	var in channelInput
	if err := json.Unmarshal(body, &in); err != nil {
		return in, invalidBodyf("body is not a JSON object")
	}
	return in, nil
}

// prepListChannels is GET /notification-channels.
func prepListChannels(*request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := make([]channelAnswer, len(ws.notify.channels))
		for i, ch := range ws.notify.channels {
			out[i] = ch.answer()
		}
		return http.StatusOK, map[string][]channelAnswer{"channels": out}, nil
	}, nil
}

// prepCreateChannel is POST /notification-channels. The target is stored as given, not
// checked to be a URL: a notification to a target that is not one is recorded as failed.
func prepCreateChannel(r *request) (op, *apiError) {
	in, err := decodeChannel(r.body)
	if err != nil {
		return nil, err
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		ch := &notifyChannel{id: ws.newID("ch_"), kind: *in.Type, target: *in.Target,
			events: in.Events, createdAt: now}
		if in.Secret != nil {
			ch.secret = *in.Secret
		}
		ws.notify.channels = append(ws.notify.channels, ch)
		return http.StatusCreated, ch.answer(), nil
	}, nil
}

// prepGetChannel is GET /notification-channels/{id}.
func prepGetChannel(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i, err := ws.notify.channel(id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, ws.notify.channels[i].answer(), nil
	}, nil
}

// prepUpdateChannel is PATCH /notification-channels/{id}: members sent replace the stored
// ones, members left out stay.
func prepUpdateChannel(r *request) (op, *apiError) {
	in, err := decodeChannel(r.body)
	if err != nil {
		return nil, err
	}
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i, err := ws.notify.channel(id)
		if err != nil {
			return 0, nil, err
		}
		ch := ws.notify.channels[i]
		if in.Type != nil {
			ch.kind = *in.Type
		}
		if in.Target != nil {
			ch.target = *in.Target
		}
		if in.Events != nil {
			ch.events = in.Events
		}
		if in.Secret != nil {
			ch.secret = *in.Secret
		}
		if in.Disabled != nil {
			ch.disabled = *in.Disabled
		}
		return http.StatusOK, ch.answer(), nil
	}, nil
}

// prepRemoveChannel is DELETE /notification-channels/{id}. No sequence refers to a channel,
// so removing one leaves every sequence as it was.
func prepRemoveChannel(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i, err := ws.notify.channel(id)
		if err != nil {
			return 0, nil, err
		}
		ws.notify.channels = slices.Delete(ws.notify.channels, i, i+1)
		return http.StatusNoContent, nil, nil
	}, nil
}
