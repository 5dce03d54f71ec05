package gate

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// Code is the exit code of where the checkpoints stand, and the message
// that says it: escalated before rejected before pending; OK when none
// of them is left. `ralph-ci run` and `ralph-ci check` both end with it.
func (r Result) Code() (exitcode.Code, string) {
	switch {
	case len(r.Escalated) > 0:
		return exitcode.Escalated, fmt.Sprintf("checkpoint rejected %d times; escalated, waiting for a decision (1/2/3): %v", tiers.EscalationThreshold, r.Escalated)
	case len(r.Rework) > 0:
		return exitcode.Rejected, fmt.Sprintf("checkpoint rejected; back to work: %v", r.Rework)
	case len(r.Pending) > 0:
		return exitcode.AwaitHuman, fmt.Sprintf("awaiting the human checkpoint of the verify tier: %v", r.Pending)
	}
	return exitcode.OK, "every verify-tier checkpoint is approved for the head commit"
}

// Waiting tells whether a checkpoint waits for an answer: pending, or
// escalated (waiting for 1, 2 or 3). A rejection waits for work instead.
func (r Result) Waiting() bool {
	code, _ := r.Code()
	return code == exitcode.AwaitHuman || code == exitcode.Escalated
}

// Lines are the standings as check prints them, one "SPEC\tcheckpoint=
// passed|pending|rejected|escalated" line per verify-tier spec.
func (r Result) Lines() []string {
	var out []string
	for _, group := range []struct {
		name  string
		specs []string
	}{{"passed", r.Passed}, {"pending", r.Pending}, {"rejected", r.Rework}, {"escalated", r.Escalated}} {
		for _, s := range group.specs {
			out = append(out, fmt.Sprintf("%s\tcheckpoint=%s", s, group.name))
		}
	}
	return out
}

// Check is the merge gate of `ralph-ci check`: it syncs the checkpoints of
// Specs on Channel under the state lock of Dir, again every Every while
// one waits for an answer, at most for Wait.
type Check struct {
	Channel Channel
	Specs   []plan.Spec
	Dir     state.Dir
	Lock    state.LockInfo
	Wait    time.Duration // 0: sync once
	Every   time.Duration // > 0
	Log     zerolog.Logger
	// Untrusted says why the state in Dir may not be trusted ("" when it
	// may): it came with the checkout (committed in the pull request), so
	// it could claim any spec verified 3/3. The sync then starts from no
	// state (the checkpoint records come from their comments), presents
	// nothing and saves nothing.
	Untrusted string
}

// Run runs the gate. gated is false when there is nothing to gate: no
// verify-tier spec, or a laptop (the Local channel) on which no
// checkpoint was presented yet, where check only validates.
func (c Check) Run(ctx context.Context) (res Result, gated bool, err error) {
	if c.Every <= 0 {
		return Result{}, false, fmt.Errorf("poll interval %v: want a positive duration", c.Every)
	}
	verify := false
	for _, sp := range c.Specs {
		verify = verify || sp.Tier == plan.TierVerify
	}
	if !verify {
		return Result{}, false, nil
	}
	if c.Untrusted != "" {
		c.Log.Warn().Str("state", c.Dir.StatePath()).Str("reason", c.Untrusted).
			Msg("the state in the checkout is not trusted: the gate reads the checkpoints from their comments only and presents none")
	}
	if _, local := c.Channel.(Local); local && !Presented(c.Dir, c.Specs) {
		c.Log.Info().Msg("no checkpoint was presented on this machine yet: check validated only (exit 0); ralph-ci run presents them once the specs are verified 3/3")
		return Result{}, false, nil
	}
	res, err = Poll(ctx, c.Wait, c.Every, c.syncSaved, c.Log)
	return res, true, err
}

// syncSaved syncs the checkpoints under the state lock and saves.
func (c Check) syncSaved(ctx context.Context) (Result, error) {
	if c.Untrusted != "" {
		var st state.State
		return Sync(ctx, c.Channel, c.Specs, &st, c.Log)
	}
	lock, st, err := state.Open(c.Dir, c.Lock)
	if err != nil {
		return Result{}, err
	}
	defer lock.Release()
	res, err := Sync(ctx, c.Channel, c.Specs, &st, c.Log)
	if err != nil {
		return res, err
	}
	return res, state.Save(c.Dir, st)
}

// Poll calls sync, and again every `every` while a checkpoint waits for
// an answer (Result.Waiting), as long as the next call comes before wait
// has passed (the first re-read comes whenever every < wait). It returns the last result; a cancelled ctx ends the wait
// with an Interrupted error.
func Poll(ctx context.Context, wait, every time.Duration, sync func(context.Context) (Result, error), log zerolog.Logger) (Result, error) {
	deadline := time.Now().Add(wait)
	for reads := 1; ; reads++ {
		res, err := sync(ctx)
		if err != nil || !res.Waiting() {
			return res, err
		}
		// A wait that covers one interval reads again at least once,
		// however long the first read took: a slow API must not turn
		// --wait into no wait at all.
		if reads == 1 && every >= wait || reads > 1 && !time.Now().Add(every).Before(deadline) {
			return res, nil
		}
		log.Info().Dur("every", every).Time("until", deadline).Msg("waiting for checkpoint answers")
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, exitcode.New(exitcode.Interrupted, ctx.Err())
		case <-t.C:
		}
	}
}

// Presented tells whether the checkpoint of a verify-tier spec was ever
// presented (state.json has its record). Without a pull request, check
// is a gate only from then on; on a pull request it always is. A state
// that cannot be read counts as presented, so that the sync reports it.
func Presented(dir state.Dir, specs []plan.Spec) bool {
	st, err := state.Load(dir)
	if err != nil {
		return true
	}
	for _, sp := range specs {
		if ss := st.Spec(sp.Path); sp.Tier == plan.TierVerify && ss != nil && ss.Checkpoint != nil {
			return true
		}
	}
	return false
}
