// Package match is the deterministic reference matcher behind the mock server.
//
// It is pure Go: no HTTP, no JSON, no wall clock and no goroutines. An [Engine] holds one
// workspace's workers, tasks, offers, decisions and learning statistics. Every command
// (UpsertWorker, CreateTask, Accept, Advance, ...) takes the current time from the caller,
// first fires the offer expiries due by then (each followed by matching at its own time),
// applies the command, runs matching and returns a [Result]: the events
// in a total order and the ids of the decisions made ([Engine.Decision] reads one). The
// same commands with the same times always give the same results: nothing depends on map
// iteration order.
//
// A command that fails returns a typed error (see [ErrNotFound], [ErrInvalidState],
// [ErrTaskExists], [ErrBacklogFull], [ErrInvalidInput]) and changes nothing itself; its
// Result still carries the expiries that were due, which the caller must publish.
//
// An Engine is not safe for concurrent use; the caller serialises access (the mock server
// holds one lock per workspace).
//
// # Rule sets
//
// Config.Rules picks one. [RulesPlatform], the default, reproduces the platform's published
// engine (assignment-user-matcher 1.16.1; platform.go, platform_pass.go): any shared tag,
// each worker reading a window of its 50 lowest-ranked candidate tasks, priority + score,
// exactly one match pass after every command over the workers in registration order, and
// the offer expiries due by a command fired together before it. docs/contract.md, "How the
// platform matches", states each rule with its smallest scenario; the conformance suite
// (conformance/) checks them against the engine itself. A pass looks only at the workers
// marked since the last one (platMark: a worker whose state changed, the ready workers
// reaching a task that entered the queue or changed, those whose window a leaving task can
// widen, and those that still had candidates), in registration order, and gives exactly the
// decisions of a pass over every worker (TestPlatformIncrementalAgreesWithFullPass). Each
// worker it looks at reads its window from per-tag orders of the queued tasks by priority,
// then id (platform_order.go, platform_window.go): its tags are read lowest bound first and
// each stops once nothing left in it can rank below the window, so a freed slot reads about
// the window's 50 tasks plus one per tag instead of ranking every queued task of its tags
// (TestPlatformWindowAgreesWithScan compares the two on random queues; figures in
// BENCHMARKS.md, "Matcher under the platform rules"). The indexes below serve the
// every-tag rules; under RulesPlatform the engine keeps only what a pass reads (see the end
// of the next section).
//
// [RulesEveryTag] is the rule set of earlier releases, described below.
//
// # Semantics in brief (every-tag rules)
//
// A worker is eligible for a task when it is available, not on a break, below its cap, not
// vetoed by the task, has not rejected it (nor been blocked by an expiry), no task tag hits
// a 0 routing weight, it carries every task tag (any one tag with
// Config.AnyTagEligibility), and meets the skill thresholds. Tasks are served by priority
// (descending), then first queued, then creation order. Best-match scores the sum of the task tags'
// weights times the learning factor 1 + 0.5 × mean(tanh(meanReward/2)).
//
// Routing inputs beyond tags (routing.go): a task's TaskRouting (required skills with a
// minimum level, a team, a preferred team, a location with a distance limit, requireGeo,
// allowed CIDR ranges) against a worker's WorkerRouting (skills with levels, weights and an
// end, teams, location and travel limit, ip). A failing rule makes the worker ineligible with
// its own reason kind; required skills and the preferred team add to the score. A task without
// TaskRouting never runs this code. A task bound to a team, or requiring one skill, walks the
// route heaps (routeindex.go) instead of its rarest tag's: the ready members of that team, or
// the holders of that skill bucketed by level and weight (heaviest first, buckets below the
// minimum level skipped), each heap ordered like the tag heaps, so the ordered walk runs on
// them with the bucket's weight (and the preferred-team bonus) added to its bound. A task with
// two or more required skills, or only a preferred team, takes the plain scan of its rarest
// tag's ready carriers, as the walk's bound does not cover those scores. A queued task with
// routing rules is skipped, like a veto, by a freed worker it does not suit.
//
// The engine stores but does not enforce sla and schedule: those ride in TaskInput.Extra.
//
// # Indexes and their cost
//
//   - Ready workers (available, not on a break, below their cap) sit in one heap per tag
//     they carry literally, ordered by an upper bound of their score per task tag, then
//     the best-match tie-breaks. Each heap entry carries a copy of those fields and a
//     64-bit mask of the worker's tags, so sifting and walking compare entries in place.
//     A new task in best-match mode walks the heap of its rarest tag (fewest ready
//     carriers) best-first and stops when no later worker can win: with equal workers it
//     looks at a handful, plus up to Config.MaxCandidates for the explanation. A carrier
//     whose mask lacks a task tag is skipped without touching the worker, but the walk
//     still visits every ready carrier of the rarest tag before the first eligible one,
//     and all of them when none is eligible (a no-match create). Other modes and any-tag
//     mode scan the ready carriers (of every task tag in any-tag mode).
//   - A worker's offer, accept or expiry re-sifts its entry in each of its tags' heaps:
//     O(tags × log ready carriers), and, for a worker with teams or skills, in the route
//     heaps too: O((1 + teams + skills) × tags × log ready carriers).
//   - Workers carrying tags through `prefix*` weights are also kept in one list that every
//     new task scans: cost O(ready pattern workers) per task.
//   - Workers that are not ready sit in a list per tag, so a decision can name up to
//     min(MaxCandidates/5, 3) of them (unavailable, onBreak, backlogFull) by reading the
//     head of its task tags' lists: O(candidates shown × task tags), never a worker scan.
//     Pattern-only carriers are not listed there.
//   - Queued tasks are grouped by (tag set, skill thresholds); each group is a heap in
//     task order. A worker that gains capacity looks up the groups whose tag set is a
//     subset of its tags (one map lookup per subset up to the largest queued set), or walks
//     the groups keyed under its tags when that is fewer; pattern workers walk the groups
//     keyed under every tag their patterns match. Inside a group only tasks that veto or
//     were rejected by the worker are skipped over. A task created while nothing else is
//     waiting to be matched is decided before it is queued, so one matched at once never
//     makes and drops a group.
//   - Offer deadlines live in one heap, and task clocks (SLA shelf life, schedule window;
//     clocks.go) in another, holding only tasks that have them; NextDeadline is O(1) and a
//     command fires what both hold due, in time order. Parked and scheduled tasks are in no
//     queue group, so matching never sees them.
//   - A decision explains up to Config.MaxCandidates workers: each is checked again with
//     its reasons into reused buffers, which are compacted straight into the decision log
//     (reason tags as interned ids, kinds as codes, no pointers in reasons; about a third
//     of the bytes of the exported form). The log is a ring of the newest
//     Config.DecisionRetention decisions whose slots, buffers included, are reused: once
//     it is full, keeping a decision allocates only its id. A Result names its decisions
//     by id; Decision and Decisions rebuild the exported form on demand, so a command
//     never builds one. Tasks pages in creation order and costs the tasks scanned from
//     the cursor.
//
// Under RulesPlatform each queued task sits instead in an order per tag (platform_order.go):
// chunks of entries by priority, then id, each entry copying what a window reads of its
// task (priority, the id's first bytes, its tag ids, whether anything beyond tags
// applies), so a worker's window (platform_window.go) merges the heads of its tags' orders
// without touching the tasks, and stops each tag once nothing left in it can rank inside;
// each order also copies its chunks' last entries into one array, which an insert or a
// removal searches instead of probing a chunk per step.
// Those orders are its whole queue: a queued task is in no group (the groups serve only
// the every-tag task scan). Of the ready indexes a pass reads only which workers are in
// them (platMarkReach marks the ready carriers of a task's tags, and the pass sorts the
// marked workers by registration), so each tag's ready heap is an unordered set there:
// a worker that frees a slot is appended and one that fills its cap is swapped out, with
// no sifting, no score bound (updateBound) and no entry copies to refresh (rekey). The
// route heaps and the waiting lists stay empty, as only the every-tag best-match walks
// the former and only its decisions read the latter (a platform decision names the
// carriers of the task's tags from the all-workers lists). Those carriers are gathered
// before any is explained and loaded in one loop, so the cache misses of rarely touched
// workers overlap; what an explanation reads of a worker leads its struct.
//
// BenchmarkScale measures both rule sets at 10,000 workers and 100,000 queued tasks (and,
// with TASKROUTING_LONG=1, at 100,000 and 1,000,000); BenchmarkPlatformWindow the window
// read alone; BenchmarkMemoryLatency what a cache miss costs on the machine, which most of
// a freed slot's latency follows. BENCHMARKS.md has the figures, beside the platform's
// engine timed on the same workload in the same run, and bench_test.go the commands.
package match
