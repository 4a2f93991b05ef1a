package match

import (
	"slices"
	"time"
)

// Engine is one workspace's matcher: workers, tasks, offers, decisions and learning. Use
// New. Not safe for concurrent use: the caller serialises access.
type Engine struct {
	cfg Config

	now     int64 // latest time seen, Unix ns; never goes backwards
	nowTime time.Time

	seq      uint64 // events
	decSeq   uint64 // decisions
	taskSeq  uint64 // task creation order
	visitSeq uint64 // stamps that dedupe workers and groups within one scan

	tagIDs   map[string]int32
	tagNames []string

	workers   map[string]*worker
	sortedIDs []string // cache for WorkerIDs; nil when stale

	ready    []readyHeap       // by tag id: ready workers carrying it literally (unordered under RulesPlatform)
	readyPat posSet[*worker]   // ready workers with a positive pattern weight
	all      []posSet[*worker] // by tag id: every worker carrying it literally
	waiting  []posSet[*worker] // by tag id: indexed workers carrying it literally, not ready (RulesEveryTag only)
	allPat   posSet[*worker]   // every worker with a positive pattern weight
	routes   routeIndex        // ready workers by team and skill bucket (routeindex.go); RulesEveryTag only

	tasks    map[string]*task
	taskList []*task // creation order, for paging

	// by tag id: tasks ever created with it (picks a group's key tag; under RulesPlatform,
	// the tags a `prefix*` entry reaches, platKeys)
	tagUses []int64

	// The queue groups and their indexes: RulesEveryTag only (enqueue). Under
	// RulesPlatform the queue is plat.byTag.
	groups       map[string]*group
	byTagSet     map[string][]*group // by tag set alone (thresholds aside): subset lookups
	bySmallSet   map[uint64][]*group // the same for sets packSet can pack
	groupsBySize []int               // by tag count: number of groups
	byKeyTag     []posSet[*group]    // by tag id: groups keyed under it
	keyTags      []int32             // tag ids with a non-empty byKeyTag entry, for pattern workers
	keyTagPos    []int32             // by tag id: position in keyTags, -1 when absent
	byTag        []posSet[*group]    // by tag id: every group containing it (any-tag mode only)

	deadlines deadlineHeap
	clocks    clockHeap // task clocks (clocks.go): SLA, schedule

	dirtyTasks   []*task
	dirtyWorkers []*worker

	decisions  []storedDecision // retained: a ring, decision n in slot (n-1) % len
	decByWork  map[string][]uint64
	learnOuts  int
	learnSum   float64 // sum of every recorded reward, undecayed
	learnPairs int

	plat platState // RulesPlatform (platform_pass.go)

	// vetoesAsSent: by task, vetoedWorkers as created, for the tasks whose vetoes a
	// RemoveWorker made matching forget until they are queued again (platForget). Kept off
	// the task so that a task stays as small for the collector to scan.
	vetoesAsSent map[*task][]string

	// fullScan turns off the ordered best-match walk; tests compare the two.
	fullScan bool

	// scratch space reused by scans so that matching does not allocate per candidate.
	keyBuf   []byte
	frontier []int32
	scan     scanResult
	reasons  []Reason   // a decision's reasons while it is built
	marks    []candMark // a decision's candidates while it is built
	markTmp  []candMark // scratch: eligibleFirst

	// onDecide, when set (tests only), sees every decision as built from the explanation,
	// before it is compacted into the log.
	onDecide func(Decision)
}

// worker is the engine's state for one worker.
type worker struct {
	// What a decision reads of each worker it explains comes first, within 128 bytes (two
	// cache lines, fetched as a pair): a decision lists up to 25 workers, most of them
	// cold when their tags are rare, and each line more is a cache miss more per worker.
	id        string
	visit     uint64 // the stamp of the last scan or decision that met it
	available bool
	onBreak   bool
	removed   bool
	starTags  bool // a tag ends in `*`: under RulesPlatform a pattern (platPatternTags)
	maxBack   *int
	weights   map[string]float64
	pending   []*task // offers held, in offer order
	tagSeq    []int32 // ids of tags in tags' order (the platform's reasons name them so)
	tags      []string

	breakAt   time.Time
	breakWhy  string
	extra     any
	createdAt time.Time
	lastMatch int64   // Unix ns of the last offer, or creation: "idle since"
	ub        float64 // bound of its score per task tag; orders the ready heaps (RulesEveryTag only)
	matched   bool

	// derived from tags and weights
	tagIDs   []int32           // sorted ids of tags
	carried  []int32           // sorted ids carried literally (tags + positive exact weights)
	lit      map[int32]float64 // exact weights by tag id
	patterns []pattern         // longest prefix first
	posPat   bool              // has a positive pattern: carries tags by pattern
	mask     uint64            // tagMask: a cheap test for a missing tag

	stats map[int32]*stat

	rt *WorkerRouting // skills, teams, place, ip; nil: none (routing.go)

	// index membership
	indexed  bool    // in the all-workers indexes
	ready    bool    // in the ready indexes
	idxTags  []int32 // carried tags it is indexed under
	readyPos []int32 // by idxTags slot, then by routeHeaps slot (routeindex.go)
	allPos   []int32
	waitPos  []int32 // positions in Engine.waiting, by idxTags slot
	isWait   bool    // in the waiting indexes
	rPatPos  int32
	aPatPos  int32
	dirty    bool

	// the route heaps and sets it is in while ready (routeindex.go)
	routeHeaps []*readyHeap
	routeSets  []*routeSet

	grants []int64 // RulesPlatform, ModeBalanced: Unix ns of its grants within the window

	// RulesPlatform (platform_pass.go): registration order, and whether the next pass must
	// look at it (platDirty) or may skip it as having no candidate (platFull: its candidate
	// union was wider than the window, so a task leaving the queue can bring a new one in).
	platSeq   uint64
	platOrd   uint64 // its place in the order ties are broken by: platSeq, or a seeded hash of its id (Config.ShuffleTies)
	platDirty bool
	platFull  bool
}

type pattern struct {
	prefix string
	weight float64
}

// task is the engine's state for one task.
type task struct {
	// The fields a worker's window reads of a task that is not plain come first, so one or
	// two cache lines hold them (platform_order.go, orderEntry).
	id       string
	priority float64
	tags     []int32 // sorted ids; under RulesEveryTag shared with its group
	vetoed   []string
	rejected []string
	booked   string // while set, the only worker it may be offered to (booking.go)

	seq       uint64
	key       idKey // the id's first bytes, for comparing ids (platform_order.go)
	tagsIn    []string
	thr       []threshold
	thrIn     map[string]float64
	queued    int64 // first queued, Unix ns
	createdAt time.Time
	status    Status
	workerID  string
	w         *worker // offered worker while pending
	manual    bool    // offered by Assign, not by matching
	esc       *Escalation
	rt        *TaskRouting // nil unless the task uses a routing rule beyond tags
	result    any
	extra     any
	g         *group   // its queue group while queued, RulesEveryTag only (enqueue)
	decs      []uint64 // numbers of its retained decisions
	heapIdx   int32
	deadline  int64
	dlIdx     int32
	dirty     bool
	cl        *clockState // SLA, schedule and escalation ladder (clocks.go); nil: none

	// RulesPlatform (platform_pass.go): whether it is in plat.byTag, and whether a pass
	// awarded it already.
	platQueued bool
	platTaken  bool

	forgotten bool // removed by Forget, for the batch removal from taskList
}

const (
	defaultMaxBacklog    = 9
	defaultOfferTimeout  = 60 * time.Second
	defaultMaxCandidates = 25
	defaultRetention     = 10000
	defaultHalfLife      = 7 * 24 * time.Hour
)

// New returns an empty engine; zero fields of cfg take their documented defaults.
func New(cfg Config) *Engine {
	if cfg.Mode == "" {
		cfg.Mode = ModeBestMatch
	}
	if cfg.Rules == "" {
		cfg.Rules = RulesPlatform
	}
	if cfg.CandidateWindow <= 0 {
		cfg.CandidateWindow = defaultCandidateWindow
	}
	if cfg.DefaultMaxBacklog <= 0 {
		cfg.DefaultMaxBacklog = defaultMaxBacklog
	}
	if cfg.OfferTimeout <= 0 {
		cfg.OfferTimeout = defaultOfferTimeout
	}
	if cfg.BalancedLoadPenalty <= 0 {
		cfg.BalancedLoadPenalty = 1
	}
	if cfg.EventIDPrefix == "" {
		cfg.EventIDPrefix = "evt_"
	}
	if cfg.DecisionIDPrefix == "" {
		cfg.DecisionIDPrefix = "dec_"
	}
	if cfg.MaxCandidates <= 0 {
		cfg.MaxCandidates = defaultMaxCandidates
	}
	if cfg.DecisionRetention <= 0 {
		cfg.DecisionRetention = defaultRetention
	}
	if cfg.Learning.LearnedVetoThreshold == 0 {
		cfg.Learning.LearnedVetoThreshold = -0.5
	}
	if cfg.Learning.LearnedVetoMinSamples <= 0 {
		cfg.Learning.LearnedVetoMinSamples = 5
	}
	if cfg.Learning.HalfLife <= 0 {
		cfg.Learning.HalfLife = defaultHalfLife
	}
	return &Engine{
		cfg:        cfg,
		tagIDs:     make(map[string]int32),
		workers:    make(map[string]*worker),
		tasks:      make(map[string]*task),
		groups:     make(map[string]*group),
		byTagSet:   make(map[string][]*group),
		bySmallSet: make(map[uint64][]*group),
		decByWork:  make(map[string][]uint64),
		plat:       platState{learn: newPlatLearning(cfg)},
	}
}

// Config returns the engine's configuration with defaults filled in.
func (e *Engine) Config() Config { return e.cfg }

// Now returns the latest time the engine has seen. A command with an earlier time is
// treated as happening at this time, so the engine's clock never runs backwards.
func (e *Engine) Now() time.Time { return e.nowTime }

// begin starts a command: the clock moves to now and every offer expiry and task clock due
// by then fires,
// each followed by matching at its own time. The caller passes an empty Result so that it
// can live on the caller's stack: a command then allocates nothing for it.
func (e *Engine) begin(res *Result, now time.Time) *Result {
	target := now.UnixNano()
	if target < e.now {
		target = e.now
		now = e.nowTime
	}
	e.fireDue(res, target, now.Location())
	e.setClock(target, now)
	return res
}

func (e *Engine) setClock(ns int64, t time.Time) {
	if ns >= e.now {
		e.now = ns
		e.nowTime = t
	}
}

// finish runs matching to a fixed point and hands back the result.
func (e *Engine) finish(res *Result) Result {
	e.settle(res)
	return *res
}

// fail returns the expiries already applied by begin together with a command's error.
func (e *Engine) fail(res *Result, err error) (Result, error) { return *res, err }

func (e *Engine) emit(res *Result, ev Event) {
	e.seq++
	ev.Seq = e.seq
	ev.ID = seqID(e.cfg.EventIDPrefix, e.seq)
	ev.At = e.nowTime
	res.Events = append(res.Events, ev)
}

func (e *Engine) taskEvent(res *Result, kind EventKind, t *task, workerID string) *Event {
	e.emit(res, Event{Kind: kind, TaskID: t.id, WorkerID: workerID, Priority: t.priority, Tags: slices.Clone(t.tagsIn)})
	return &res.Events[len(res.Events)-1]
}

// intern returns the id of a tag, adding it if new.
func (e *Engine) intern(tag string) int32 {
	if id, ok := e.tagIDs[tag]; ok {
		return id
	}
	id := int32(len(e.tagNames))
	e.tagIDs[tag] = id
	e.tagNames = append(e.tagNames, tag)
	e.ready = append(e.ready, readyHeap{unordered: e.platform()})
	e.all = append(e.all, posSet[*worker]{})
	e.waiting = append(e.waiting, posSet[*worker]{})
	e.tagUses = append(e.tagUses, 0)
	e.byKeyTag = append(e.byKeyTag, posSet[*group]{})
	e.keyTagPos = append(e.keyTagPos, -1)
	e.byTag = append(e.byTag, posSet[*group]{})
	e.plat.byTag = append(e.plat.byTag, prioOrder{})
	return id
}

// lookupTag returns a tag's id without adding it (-1 when unknown), for dry runs.
func (e *Engine) lookupTag(tag string) int32 {
	if id, ok := e.tagIDs[tag]; ok {
		return id
	}
	return -1
}

func (e *Engine) capOf(w *worker) int {
	if w.maxBack != nil {
		return *w.maxBack
	}
	return e.cfg.DefaultMaxBacklog
}

func (e *Engine) markTask(t *task) {
	if e.platform() {
		if t.status == StatusQueued {
			e.platMarkReach(t, false)
		}
		return
	}
	if !t.dirty {
		t.dirty = true
		e.dirtyTasks = append(e.dirtyTasks, t)
	}
}

func (e *Engine) markWorker(w *worker) {
	if e.platform() {
		e.platMark(w)
		return
	}
	if !w.dirty {
		w.dirty = true
		e.dirtyWorkers = append(e.dirtyWorkers, w)
	}
}

func (e *Engine) offerTimeout(t *task) time.Duration {
	if t.esc != nil && t.esc.RespondWithin > 0 {
		return t.esc.RespondWithin
	}
	return e.cfg.OfferTimeout
}

func (e *Engine) lookupWorker(id string) (*worker, error) {
	w, ok := e.workers[id]
	if !ok {
		return nil, &NotFoundError{Kind: "worker", ID: id}
	}
	return w, nil
}

func (e *Engine) lookupTask(id string) (*task, error) {
	t, ok := e.tasks[id]
	if !ok {
		return nil, &NotFoundError{Kind: "task", ID: id}
	}
	return t, nil
}
