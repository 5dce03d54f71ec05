package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/changes"
	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/scheduler"
	"github.com/ralph-ci/ralph-ci/pipeline/spend"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"

	"github.com/rs/zerolog"
)

// Options configure one run.
type Options struct {
	Project *project.Project
	// MaxRotations stops the run after that many rotations (0: the
	// config's budgets.max_rotations, if any).
	MaxRotations int
	Log          zerolog.Logger
	// Progress, when set, gets a live progress line (a terminal).
	Progress io.Writer
	// Version is recorded in the lock file.
	Version string
	// Echo, when set, is called before each agent runs: the agent's output
	// is also written to the writer it returns, and done is called after.
	// In GitHub Actions it groups the output and fences workflow commands.
	Echo func(title string) (w io.Writer, done func())
	// Checkpoints, when set, is where verify-tier checkpoints are
	// presented and answered (a pull request, or the terminal); see tiers.go.
	Checkpoints gate.Channel
	// Deliverer, when set, carries the work and state out of the job.
	Deliverer Deliverer
	// Shard names the shard of a CI matrix this run is ("1-of-2"), "" for
	// a whole run. A shard presents no checkpoint: the integration does,
	// for the integrated head, so a verify-tier spec at 3/3 is done here.
	Shard string
	// Integration is true for the run that integrates a matrix's shards
	// (see pipeline/shards): the report names it where it ran a spec.
	Integration bool
	// AfterRotation, when set, is called after each rotation with the
	// rotations and cost of this run so far and the state (the pull
	// request's progress comment).
	AfterRotation func(ctx context.Context, rotations int, costUSD float64, specs []plan.Spec, st *state.State)
	// Host is how the agents and verification commands are started: the
	// secrets masked in their output, the environment policy, the
	// shepherd (nil: none of these).
	Host *agent.Host
	// SpendProof, when set (on GitHub), proves the day's spend ledger
	// with ralph-ci's own commit statuses (see spend.Proof).
	SpendProof spend.Proof
	// UntrustedState, when set, says why the state in the checkout did
	// not come from ralph-ci (state.Committed): the run starts from an
	// empty state, and saves its own over it.
	UntrustedState string
}

// Outcome is how a run ended.
type Outcome struct {
	Code      exitcode.Code
	Message   string
	Rotations int     // rotations run by this invocation
	CostUSD   float64 // reported by the agents during this invocation
	State     state.State
	Specs     []plan.Spec
	// Report is the run's report, for the reporters.
	Report *report.Report
}

// engine is the state of one run.
type engine struct {
	opts Options
	// trusted is the verifier guard's trusted commit as ralph-ci recorded
	// it (see loopTrusted).
	trusted string
	root    string
	dir     state.Dir
	st      state.State
	specs   []plan.Spec
	specAt  map[string]int // index in specs by path
	// stateAt is, for each entry of st.Specs at the last scan, the index
	// of its spec in specs (see indexed).
	stateAt []int
	// scanned is set by the run's first scan: a spec that changed
	// before it changed outside the loop (state.SpecState.SeenHash).
	scanned bool
	loader  *project.Loader
	log     zerolog.Logger

	// after is the snapshot taken after the last rotation: the baseline
	// of the next one, unless the watcher can tell cheaply.
	after *changes.Snapshot
	// latest is the newest snapshot taken (a rotation's baseline, then
	// its after), and listed the file list made for it (see files).
	latest *changes.Snapshot
	listed fileList
	watch  *changes.Watcher
	// adopted is the key (snapshotKey) of the snapshot the Deliverer's
	// last commit left: a work tree still as it says has nothing to
	// commit.
	adopted *[32]byte
	started time.Time
	// fresh are the spec paths discovered since the previous scan, which
	// interrupt the current spec.
	fresh map[string]bool
	// entries is next's matrix, kept for the next rotation's.
	entries []scheduler.Entry
	pool    pool
	runID   string // RALPH_RUN_ID of this run's agents
	// rotations are this run's rotations by spec, for the report.
	rotations map[string][]report.Rotation
	outcome   Outcome
	maxRotns  int
	// promptBytes is the size of the last prompt given to an agent.
	promptBytes int
	// resuming tells that the rotation being prepared is an interrupted
	// one run again: what it changed is never the guard's baseline.
	resuming bool
	// checkpoints is the result of the last checkpoint sync.
	checkpoints *gate.Result
	// spend is the run's account of its agents' spend; lastSpend and
	// lastStop are the last rotation's spend and the cap that stopped it.
	spend     spending
	lastSpend spend.Amount
	lastStop  *report.CapStop
	// lastJudge is the last rotation's semantic judge run (nil: none ran).
	lastJudge *report.Judge
	// words are the repository's own admission phrases and headings
	// (layers.admission_files, read from the trusted commit).
	words layers.Words
	// refused are the tree's paths a link leads out of whose skipping
	// was logged (noteRefused).
	refused sync.Map
}

// Run works through the specs until all are verified, a limit stops it,
// or ctx is cancelled (the outcome is then Interrupted and the in-flight
// rotation is left to be re-run by the next invocation).
func Run(ctx context.Context, opts Options) (Outcome, error) {
	p := opts.Project
	e := &engine{opts: opts, root: p.Root, dir: state.At(p.Root), log: opts.Log, started: time.Now(), fresh: map[string]bool{}}
	log := opts.Log
	state.OnReplaced(func(path string, found error) {
		log.Warn().Err(found).Str("file", path).Msg("the agent put something other than ralph-ci's file in .ralph/: removed it (not followed) and wrote a new one")
	})
	e.loader = p.Loader // its cache holds the specs Project.Load validated
	if e.loader == nil {
		e.loader = &project.Loader{Root: p.Root, Config: p.Config, Only: p.Only}
	}
	e.maxRotns = opts.MaxRotations
	if e.maxRotns == 0 {
		e.maxRotns = p.Config.Budgets.MaxRotations
	}
	if err := e.dir.Ensure(); err != nil {
		return Outcome{Code: exitcode.Failure}, err
	}
	e.runID = newRunID()
	lock, err := state.Acquire(e.dir, state.LockInfo{Command: "run", Version: opts.Version, RunID: e.runID})
	if err != nil {
		return Outcome{Code: exitcode.Failure}, err
	}
	defer lock.Release()
	if lock.Recovered != nil {
		e.log.Warn().Str("stale", lock.Recovered.String()).Msg("recovered a stale lock")
		if h := lock.Recovered.Holder; h != nil {
			if n := stopLeftovers(h.RunID); n > 0 {
				e.log.Warn().Int("processes", n).Msg("stopped the agent processes the crashed run left behind")
			}
		}
	}
	_ = e.dir.CleanTemp()
	external, err := e.startDelivery(ctx)
	if err != nil {
		return Outcome{Code: exitcode.Of(err)}, err
	}
	if err := ensureGuardrails(e.dir); err != nil {
		return Outcome{Code: exitcode.Failure}, err
	}
	if why := opts.UntrustedState; why != "" {
		e.log.Warn().Str("state", e.dir.StatePath()).Str("reason", why).
			Msgf("the state in the checkout is not trusted (%s): the run starts from an empty state; for a local loop, keep %s/ out of git (git rm -r --cached %s, and add it to .gitignore)", why, state.DirName, state.DirName)
		e.st = state.State{Version: state.Version}
	} else if e.st, err = state.Load(e.dir); err != nil {
		return Outcome{Code: exitcode.Failure}, err
	}
	e.pool.restore(e.st.LimitedAgents, time.Now())
	e.startSpending(ctx)
	if err := e.loadWords(ctx); err != nil {
		return Outcome{Code: exitcode.Of(err)}, err
	}
	e.absorb(external, "differ from the commit the saved state describes")
	e.watch, err = changes.NewWatcher(ctx, e.root, filepath.Join(state.DirName, "watch"), changes.WithFastPath(p.Config.Loop.Watch))
	if err != nil {
		return Outcome{Code: exitcode.Failure}, err
	}
	defer e.watch.Close()
	if on, why := e.watch.FastPath(); !on {
		e.log.Debug().Str("reason", why).Msg("change detection runs git status every rotation")
	}
	e.loader.Unchanged = e.specsUnchanged(ctx)
	defer func() { e.loader.Unchanged = nil }()
	err = e.loop(ctx)
	// The last rotation's result (and a rotation left pending by an
	// interruption) is written here; every earlier one went with the
	// record of the rotation after it.
	if serr := state.Save(e.dir, e.st); serr != nil && err == nil {
		err = serr
	}
	if derr := e.finishDelivery(ctx); derr != nil && err == nil {
		err = derr
	}
	switch {
	case err != nil && ctx.Err() != nil:
		e.outcome.Code, e.outcome.Message, err = exitcode.Interrupted, "interrupted: state saved; the interrupted rotation runs again next time", nil
	case err != nil:
		e.outcome.Code, e.outcome.Message = exitcode.Of(err), err.Error()
	}
	e.outcome.State, e.outcome.Specs, e.outcome.Report = e.st, e.specs, e.report()
	return e.outcome, err
}

// loop runs rotations until the run ends. It sets e.outcome.
func (e *engine) loop(ctx context.Context) error {
	pending := e.st.Pending
	if err := e.rescan(); err != nil {
		return err
	}
	if _, err := e.syncCheckpoints(ctx); err != nil { // answers first
		return err
	}
	for {
		if err := e.rescan(); err != nil {
			return err
		}
		var sp plan.Spec
		if pending != nil {
			found, ok := e.spec(pending.Spec)
			if !ok { // the spec went away while its rotation was interrupted
				e.log.Info().Str("spec", pending.Spec).Msg("dropping the interrupted rotation of a removed spec")
				e.st.Pending, pending = nil, nil
				continue
			}
			e.log.Info().Str("spec", pending.Spec).Int("iteration", pending.Iteration).Msg("re-running the interrupted rotation")
			sp = found
		} else {
			path, ok := e.next()
			if !ok {
				if back, err := e.syncCheckpoints(ctx); err != nil || back {
					if err != nil {
						return err
					}
					continue // a rejection sent a spec back to work
				}
				e.finish()
				return nil
			}
			sp, _ = e.spec(path)
		}
		if stop, msg := e.limitReached(); stop {
			e.outcome.Code, e.outcome.Message = exitcode.Limits, msg
			return nil
		}
		if s := e.spendReached(ctx); s != nil {
			e.outcome.Code, e.outcome.Message = exitcode.Limits, s.Message()
			if s != e.spend.halt { // reached between rotations: said once in the report
				e.spend.stops = append(e.spend.stops, reportStop(*s))
			}
			return nil
		}
		if ss := e.entry(sp.Path); ss != nil && e.specReached(ss) {
			e.log.Warn().Str("spec", sp.Path).Str("excluded", ss.Excluded).Msg("spend cap reached: the spec is taken out of the loop")
			if pending != nil {
				e.st.Pending, pending = nil, nil
			}
			continue
		}
		if err := e.rotate(ctx, sp, pending); err != nil {
			return err
		}
		if e.opts.AfterRotation != nil {
			e.opts.AfterRotation(ctx, e.outcome.Rotations, e.outcome.CostUSD, e.specs, &e.st)
		}
		pending = nil
	}
}

// next asks the scheduler for the next spec.
func (e *engine) next() (string, bool) {
	saved, current := e.savedBySpec()
	entries := e.entries[:0]
	for i, sp := range e.specs {
		en := entryOf(sp, saved[i])
		en.Discovered = e.fresh[sp.Path]
		entries = append(entries, en)
	}
	e.entries = entries
	clear(e.fresh)
	doneNoChange := false
	if current != nil {
		doneNoChange = counter.IsDone(current.LastStatus) && !current.ModifiedFiles
	}
	return scheduler.Next(entries, e.st.Current, doneNoChange)
}

// savedBySpec is the state's entry of each spec of the last scan, in
// the order of specs (nil: none yet), and the current spec's entry;
// from stateAt while it holds, without building a map of the state.
func (e *engine) savedBySpec() (saved []*state.SpecState, current *state.SpecState) {
	saved = make([]*state.SpecState, len(e.specs))
	if !e.indexed() || len(e.specAt) != len(e.specs) {
		byPath := e.st.ByPath()
		for i, sp := range e.specs {
			saved[i] = byPath[sp.Path]
		}
		return saved, byPath[e.st.Current]
	}
	for i, j := range e.stateAt {
		saved[j] = &e.st.Specs[i] // the last of duplicates, as ByPath
	}
	if j, ok := e.specAt[e.st.Current]; ok {
		current = saved[j]
	}
	return saved, current
}

// limitReached checks the run's budgets before a rotation.
func (e *engine) limitReached() (bool, string) {
	b := e.opts.Project.Config.Budgets
	switch {
	case e.maxRotns > 0 && e.outcome.Rotations >= e.maxRotns:
		return true, fmt.Sprintf("max rotations (%d) reached: state saved; run again to continue", e.maxRotns)
	case b.WallTime > 0 && time.Since(e.started) >= b.WallTime.Std():
		return true, fmt.Sprintf("wall-time budget (%s) reached: state saved; run again to continue", b.WallTime.Std())
	case b.CostUSD > 0 && e.spend.run.USD >= b.CostUSD:
		return true, fmt.Sprintf("cost budget ($%.2f) reached: %s spent", b.CostUSD, e.spend.run.USDText())
	case b.Tokens > 0 && e.spend.run.Tokens >= b.Tokens:
		return true, fmt.Sprintf("token budget (%d) reached: %d tokens spent", b.Tokens, e.spend.run.Tokens)
	}
	return false, ""
}

// stuckMessage is the run's end with specs stuck: which, and exactly how
// to bring them back.
func stuckMessage(specs []string) string {
	return fmt.Sprintf("stuck: %s taken out of the loop (the reason is in the table and the report); to bring them back, edit the spec (a change of mind clears its rejection streak and stuck mark) or run: ralph-ci reset %s (docs/troubleshooting.md#stuck)", strings.Join(specs, ", "), strings.Join(specs, " "))
}

// finish sets the outcome once no spec needs work.
func (e *engine) finish() {
	var stuck, exhausted, awaiting, escalated []string
	saved := e.st.ByPath()
	for _, sp := range e.specs {
		ss := saved[sp.Path]
		switch {
		case ss == nil:
		case ss.Stuck():
			stuck = append(stuck, sp.Path)
		case ss.Excluded != "": // with the reason: no run will continue it
			exhausted = append(exhausted, sp.Path+": "+ss.Excluded)
		case sp.Tier == plan.TierVerify && e.checkpointPassed(sp.Path):
		case sp.Tier == plan.TierVerify && e.opts.Shard != "": // the integration presents it
		case sp.Tier == plan.TierVerify && e.checkpointOf(sp.Path).Status == tiers.StatusEscalated:
			escalated = append(escalated, sp.Path)
		case sp.Tier == plan.TierVerify:
			awaiting = append(awaiting, sp.Path)
		}
	}
	switch {
	case len(stuck) > 0:
		e.outcome.Code, e.outcome.Message = exitcode.Stuck, stuckMessage(stuck)
	case len(exhausted) > 0:
		e.outcome.Code, e.outcome.Message = exitcode.Limits, fmt.Sprintf("out of iterations: %v: taken out of the loop; a next run does not continue them: ralph-ci reset, or a change to the spec, brings them back (docs/troubleshooting.md#out-of-iterations)", exhausted)
	case len(escalated) > 0 || len(awaiting) > 0:
		// The checkpoints' own mapping, the one check ends with too.
		e.outcome.Code, e.outcome.Message = gate.Result{Escalated: escalated, Pending: awaiting}.Code()
	default:
		e.outcome.Code, e.outcome.Message = exitcode.OK, "all specs verified 3/3"
	}
}

// newRunID returns a random identifier for one run.
func newRunID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ensureGuardrails creates the shared guardrails file on first use.
func ensureGuardrails(dir state.Dir) error {
	if _, err := os.Stat(dir.Guardrails()); !os.IsNotExist(err) {
		return err
	}
	return state.WriteFileAtomic(dir.Guardrails(), []byte(guardrailsIntro), 0o644)
}

const guardrailsIntro = `# Guardrails

Project-wide lessons shared by every agent and every spec. Add what the
next agent must know (a command that fails, a convention to keep).
`
