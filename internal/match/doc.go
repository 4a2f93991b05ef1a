// Package match is the deterministic reference matcher behind the mock server.
//
// It is pure Go: no HTTP, no JSON, no wall clock and no goroutines. An [Engine] holds one
// workspace's workers, tasks, offers, decisions and learning statistics. Every command
// (UpsertWorker, CreateTask, Accept, Advance, ...) takes the current time from the caller,
// first fires the offer expiries due by then (each followed by matching at its own time),
// applies the command, runs matching to a fixed point and returns a [Result]: the events
// in a total order and the decisions made. The same commands with the same times always
// give the same results: nothing depends on map iteration order.
//
// A command that fails returns a typed error (see [ErrNotFound], [ErrInvalidState],
// [ErrTaskExists], [ErrBacklogFull], [ErrInvalidInput]) and changes nothing itself; its
// Result still carries the expiries that were due, which the caller must publish.
//
// An Engine is not safe for concurrent use; the caller serialises access (the mock server
// holds one lock per workspace).
//
// # Semantics in brief
//
// A worker is eligible for a task when it is available, not on a break, below its cap, not
// vetoed by the task, has not rejected it (nor been blocked by an expiry), no task tag hits
// a 0 routing weight, it carries every task tag (any one tag with
// Config.AnyTagEligibility), and meets the skill thresholds. Tasks are served by priority
// (descending), then first queued, then id. Best-match scores the sum of the task tags'
// weights times the learning factor 1 + 0.5 × mean(tanh(meanReward/2)).
//
// The engine stores but does not enforce sla and schedule: those ride in TaskInput.Extra.
//
// # Indexes and their cost
//
//   - Ready workers (available, not on a break, below their cap) sit in one heap per tag
//     they carry literally, ordered by an upper bound of their score per task tag, then
//     the best-match tie-breaks. A new task in best-match mode walks the heap of its
//     rarest tag best-first and stops when no later worker can win: with equal workers it
//     looks at a handful (plus up to Config.MaxCandidates for the explanation); at worst
//     it visits every ready carrier of that tag. Other modes and any-tag mode scan the
//     ready carriers (of every task tag in any-tag mode).
//   - Workers carrying tags through `prefix*` weights are also kept in one list that every
//     new task scans: cost O(ready pattern workers) per task.
//   - Queued tasks are grouped by (tag set, skill thresholds); each group is a heap in
//     task order. A worker that gains capacity looks up the groups whose tag set is a
//     subset of its tags (one map lookup per subset up to the largest queued set), or walks
//     the groups keyed under its tags when that is fewer; pattern workers walk the groups
//     keyed under every tag their patterns match. Inside a group only tasks that veto or
//     were rejected by the worker are skipped over.
//   - Offer deadlines live in one heap; NextDeadline is O(1).
//   - Decisions keep the newest Config.DecisionRetention; Tasks pages in creation order
//     and costs the tasks scanned from the cursor.
package match
