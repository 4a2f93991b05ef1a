package mockserver

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// expiringDefaultDays is how far ahead skills.expiring looks when withinDays is absent
// (docs/contract.md, "Skill catalogue": the platform publishes no default).
const expiringDefaultDays = 30

// wireExpiringSkill is one row of skills.expiring (ExpiringWorkerSkill on the platform).
type wireExpiringSkill struct {
	WorkerID   string `json:"workerId"`
	Label      string `json:"label"`
	SkillID    string `json:"skillId"`
	Key        string `json:"key"`
	Name       string `json:"name"`
	ValidUntil string `json:"validUntil"`
	Expired    bool   `json:"expired"`
}

type wireExpiringSkills struct {
	AsOf   string              `json:"asOf"`
	Skills []wireExpiringSkill `json:"skills"`
}

// prepExpiringSkills is GET /skills/expiring: the skills workers hold with a validUntil no
// later than asOf + withinDays, the lapsed ones (validUntil before asOf) first, then by
// validUntil, worker id and key. asOf is a day (YYYY-MM-DD), by default the server clock's
// day in UTC.
func prepExpiringSkills(r *request) (op, *apiError) {
	within := expiringDefaultDays
	if s := r.query.Get("withinDays"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, validationf("querystring/withinDays must be integer >= 0")
		}
		within = n
	}
	var asOf time.Time
	if s := r.query.Get("asOf"); s != "" {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return nil, validationf("querystring/asOf must be a date (YYYY-MM-DD)")
		}
		asOf = d
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		day := asOf
		if day.IsZero() {
			y, m, d := now.UTC().Date()
			day = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
		today := day.Format(time.DateOnly)
		last := day.AddDate(0, 0, within).Format(time.DateOnly)
		out := wireExpiringSkills{AsOf: today, Skills: []wireExpiringSkill{}}
		for _, id := range ws.engine.WorkerIDs() {
			w, err := ws.engine.Worker(id)
			if err != nil {
				continue
			}
			label := id
			if idn, ok := ws.identities[id]; ok && idn.label != nil {
				label = *idn.label
			}
			for _, a := range storedSkills(w.Extra) {
				// ISO days compare as strings.
				if a.ValidUntil == "" || a.ValidUntil > last {
					continue
				}
				s, _ := ws.skillCat.resolve(a.SkillID)
				out.Skills = append(out.Skills, wireExpiringSkill{WorkerID: id, Label: label, SkillID: a.SkillID,
					Key: s.Key, Name: s.Name, ValidUntil: a.ValidUntil, Expired: a.ValidUntil < today})
			}
		}
		slices.SortStableFunc(out.Skills, func(a, b wireExpiringSkill) int {
			return cmp.Or(cmp.Compare(a.ValidUntil, b.ValidUntil), cmp.Compare(a.WorkerID, b.WorkerID), cmp.Compare(a.Key, b.Key))
		})
		return http.StatusOK, out, nil
	}, nil
}
