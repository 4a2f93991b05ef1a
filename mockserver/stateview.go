package mockserver

import (
	"time"
)

// stateView is the readable account of a workspace in a state document. It is built from
// the matcher's State (match.Engine.State) and the stores beside it, so a kind of state the
// matcher adds reaches the document through State alone.
type stateView struct {
	Sequence stateSequence  `json:"sequence"`
	Workers  []stateWorker  `json:"workers"`
	Tasks    []stateTask    `json:"tasks"`
	Teams    []stateTeam    `json:"teams"`
	Skills   []skill        `json:"skills"`
	Learned  []stateLearned `json:"learned"`
}

type stateSequence struct {
	Events    uint64 `json:"events"`
	Decisions uint64 `json:"decisions"`
}

type stateWorker struct {
	ID             string             `json:"id"`
	Tags           []string           `json:"tags"`
	RoutingWeights map[string]float64 `json:"routingWeights"`
	MaxBacklogSize *int               `json:"maxBacklogSize"`
	Available      bool               `json:"available"`
	OnBreak        bool               `json:"onBreak"`
	BreakReason    string             `json:"breakReason"`
	CreatedAt      time.Time          `json:"createdAt"`
	LastMatchedAt  *time.Time         `json:"lastMatchedAt"`
	Offers         []string           `json:"offers"`
}

type stateTask struct {
	ID              string             `json:"id"`
	Status          string             `json:"status"`
	WorkerID        *string            `json:"workerId"`
	Tags            []string           `json:"tags"`
	Priority        float64            `json:"priority"`
	CreatedAt       time.Time          `json:"createdAt"`
	OfferExpiresAt  *time.Time         `json:"offerExpiresAt"`
	VetoedWorkers   []string           `json:"vetoedWorkers"`
	RejectedBy      []string           `json:"rejectedBy"`
	SkillThresholds map[string]float64 `json:"skillThresholds"`
	EscalationLevel int                `json:"escalationLevel"`
	Clock           *time.Time         `json:"clock"`
}

type stateTeam struct {
	teamJSON
	Members []string `json:"members"`
}

type stateLearned struct {
	WorkerID     string     `json:"workerId"`
	Tag          string     `json:"tag"`
	Count        int        `json:"count"`
	DecayedCount float64    `json:"decayedCount"`
	DecayedSum   float64    `json:"decayedSum"`
	Last         *time.Time `json:"last"`
}

// view builds the readable account; the caller holds ws.mu. It changes nothing.
func (ws *workspace) view() stateView {
	st := ws.engine.State()
	v := stateView{
		Sequence: stateSequence{Events: st.EventSeq, Decisions: st.DecisionSeq},
		Workers:  make([]stateWorker, 0, len(st.Workers)),
		Tasks:    make([]stateTask, 0, len(st.Tasks)),
		Teams:    make([]stateTeam, 0, len(ws.teams.teams)),
		Skills:   append([]skill{}, ws.skillCat.skills...),
		Learned:  make([]stateLearned, 0, len(st.Learned)),
	}
	for _, w := range st.Workers {
		sw := stateWorker{
			ID: w.ID, Tags: orEmpty(w.Tags), RoutingWeights: w.RoutingWeights, MaxBacklogSize: w.MaxBacklogSize,
			Available: w.Available, OnBreak: w.OnBreak, CreatedAt: w.CreatedAt.UTC(),
			LastMatchedAt: utcOrNil(w.LastMatchedAt), Offers: orEmpty(w.Offers),
		}
		if w.OnBreak {
			sw.BreakReason = w.BreakReason
		}
		v.Workers = append(v.Workers, sw)
	}
	for _, t := range st.Tasks {
		thr := t.SkillThresholds
		if thr == nil {
			thr = map[string]float64{}
		}
		var worker *string
		if t.WorkerID != "" {
			id := t.WorkerID
			worker = &id
		}
		v.Tasks = append(v.Tasks, stateTask{
			ID: t.ID, Status: string(t.Status), WorkerID: worker, Tags: orEmpty(t.Tags), Priority: t.Priority,
			CreatedAt: t.CreatedAt.UTC(), OfferExpiresAt: utcOrNil(t.OfferExpiresAt),
			VetoedWorkers: orEmpty(t.VetoedWorkers), RejectedBy: orEmpty(t.RejectedBy), SkillThresholds: thr,
			EscalationLevel: t.EscalationLevel, Clock: utcOrNil(t.Clock),
		})
	}
	for _, t := range ws.teams.teams {
		st := stateTeam{teamJSON: t.json(), Members: make([]string, 0, len(t.members))}
		for _, m := range t.members {
			st.Members = append(st.Members, m.workerID)
		}
		v.Teams = append(v.Teams, st)
	}
	for _, l := range st.Learned {
		v.Learned = append(v.Learned, stateLearned{
			WorkerID: l.WorkerID, Tag: l.Tag, Count: l.Count, DecayedCount: l.DecayedCount,
			DecayedSum: l.DecayedSum, Last: utcOrNil(l.Last),
		})
	}
	return v
}

func utcOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
