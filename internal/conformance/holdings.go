package conformance

// holdings is what the workers hold as a player sees it: offers not yet answered and tasks
// accepted, task -> worker. Both Go-side players keep it from their events, which share
// the webhook kinds' names whichever surface they come from.
type holdings struct {
	pending, accepted map[string]string
}

func newHoldings() holdings {
	return holdings{pending: map[string]string{}, accepted: map[string]string{}}
}

// record applies one event of the given kind ("task.matched", ...) to the holdings and to
// the step's trace.
func (h holdings) record(kind, task, worker string, out *StepTrace) {
	pair := task + ">" + worker
	switch kind {
	case "task.matched":
		h.pending[task] = worker
		out.Offers = append(out.Offers, pair)
	case "task.expired":
		delete(h.pending, task)
		out.Expired = append(out.Expired, pair)
	case "task.released":
		delete(h.pending, task)
		out.Released = append(out.Released, pair)
	case "task.accepted":
		delete(h.pending, task)
		h.accepted[task] = worker
	case "task.rejected":
		delete(h.pending, task)
	case "task.completed", "task.cancelled":
		delete(h.accepted, task)
	}
}
