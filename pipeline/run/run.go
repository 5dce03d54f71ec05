// Package run is the run command below its flags: the run's sequence, in
// one place. Before the loop: the guards (ralph-ci's own push, a fork's
// pull request nobody asked for), the project, the delivery's branch and
// the matrix's part, the checkpoint channel; then the engine; after it:
// the delivery's last pushes and its pull request, the matrix of specs,
// the reports, the exit code (exitcode.RunEnd decides it, once), the
// progress comment's last edit and the one merge-gate status.
package run

import (
	"context"
	"fmt"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"io"
	"time"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/matrix"
	"github.com/ralph-ci/ralph-ci/pipeline/network"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/runhost"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Options are run's.
type Options struct {
	// MaxRotations stops the run after that many rotations (0: the
	// config's budgets.max_rotations).
	MaxRotations int
	// JUnit and JSON are where the reports go ("": the config's reporters).
	JUnit, JSON string
	// Deliver is the delivery mode ("": the config's delivery.mode).
	Deliver string
	// Matrix is the run's part in a CI matrix (zero: a whole run).
	Matrix matrix.Part
	// ProgressEvery is the least time between two edits of the progress
	// comment (DefaultProgressInterval).
	ProgressEvery time.Duration
	// Progress, when set, gets the engine's live progress line (a
	// terminal).
	Progress io.Writer
	// Box is the box mode ("": the config's box.mode; internal/box).
	Box string
}

// Run runs the loop over the project of j with o, from the guards to the
// merge-gate status. The error carries the exit code (nil: 0).
func Run(ctx context.Context, j *job.Session, o Options) error {
	if o.MaxRotations < 0 {
		return exitcode.Usagef("--max-rotations %d: want 0 (the config's budget) or more", o.MaxRotations)
	}
	stop, fork, err := guard(ctx, j)
	if stop || err != nil {
		return err
	}
	// On a fork's pull request the job's checkout is the default branch
	// (never the fork's code before ralph-ci runs), which may have no
	// specs yet: the loop's are those of the pull request's head, loaded
	// once the delivery has checked it out.
	t, p, err := j.Trust(fork)
	if err != nil {
		return err
	}
	m := &o.Matrix
	if err := m.Check(t.Mode); err != nil {
		return err
	}
	box, unbox, err := runhost.OpenBox(j.Log, j.Host.Shepherd, o.Box, p.Config.Box.Mode)
	if err != nil {
		return err
	}
	defer unbox()
	user, unuser, err := runhost.UseUser(ctx, j.Log, p.Config.Box.User, p.Root)
	if err != nil {
		return err
	}
	defer unuser()
	ctx, sig := exitcode.SignalContext(ctx)
	ctx = github.WithTimeout(ctx, p.Config.GitHub.Timeout.Std())
	restore := j.UseGitCredential(ctx, p.Root)
	defer restore()
	p, dl, err := setupDelivery(ctx, t, p)
	if err != nil {
		return err
	}
	if len(p.Specs) == 0 { // a fork's run that did not move to its head (not --deliver pr): no specs is an error, as anywhere
		_, err := j.Load()
		return err
	}
	if dl != nil {
		if err := m.Prepare(ctx, t, j.Log, p, dl.session); err != nil {
			return err
		}
	}
	nw, stopNetwork, err := network.Start(p.Config.Network, j.Host.Shepherd, j.Log)
	if err != nil {
		return err
	}
	defer stopNetwork()
	writes, unscratch, err := runhost.UseWrites(j.Log, p.Root, p.Config.Box, user)
	if err != nil {
		return err
	}
	defer unscratch()
	eo := engineOptions(j, p, o)
	eo.Host = j.RunHost(runhost.Policy{Box: box, Network: nw, Config: p.Config, Fork: fork, User: user, Writes: writes})
	if m.Shard == "" { // a shard's checkpoints wait for the integration
		if eo.Checkpoints, err = j.Channel(ctx, p); err != nil {
			return err
		}
	}
	eo.Shard, eo.Integration = m.Shard, m.Integrate
	if dl == nil { // a delivered state comes from its own ref, never from the checkout
		eo.UntrustedState = state.Committed(ctx, p.Root)
	} else {
		eo.Deliverer = dl.session
	}
	progress := newProgressComment(j, p, eo.Checkpoints, o.MaxRotations, o.ProgressEvery)
	if progress != nil {
		eo.AfterRotation = func(ctx context.Context, rotations int, cost float64, specs []plan.Spec, st *state.State) {
			progress.update(ctx, rotations, cost, specs, st, "")
		}
	}
	r := &ran{s: t, p: p, dl: dl, m: m, sig: sig, o: o, ch: eo.Checkpoints, progress: progress}
	out, err := engine.Run(ctx, eo)
	return r.end(ctx, outcome{out, err})
}

// ran is one run as its end takes it: the job session, the project, the
// delivery, the matrix's part, the signal caught, the options, the
// checkpoint channel and the progress comment.
type ran struct {
	s        *job.Trusted
	p        *project.Project
	dl       *delivery
	m        *matrix.Part
	sig      *exitcode.Caught
	o        Options
	ch       gate.Channel
	progress *progressComment
}

// outcome is how the engine ended: what it returns.
type outcome struct {
	engine.Outcome
	err error
}

// guard tells whether run must not start a loop: it was started by
// ralph-ci's own push, or by a fork's pull request no person with write
// access asked to run on. A notice says why. fork tells that the loop is
// for a fork's pull request.
func guard(ctx context.Context, j *job.Session) (stop, fork bool, err error) {
	if own, head, err := ownPush(ctx, j); err != nil || own {
		if own {
			_ = actions.WriteAnnotation(j.Stdout, actions.Annotation{Level: actions.LevelNotice, Title: "ralph-ci",
				Message: fmt.Sprintf("this run was started by ralph-ci's own push (%.7s carries Ralph-* trailers): no second loop; the repository's workflows run on that head", head)})
			j.Log.Info().Str("head", head).Msg("started by ralph-ci's own push: nothing to do")
		}
		return true, false, err
	}
	fork, asked, why, err := forkAsked(ctx, j)
	if err != nil || (fork && !asked) {
		if why != "" {
			_ = actions.WriteAnnotation(j.Stdout, actions.Annotation{Level: actions.LevelNotice, Title: "ralph-ci", Message: why})
			j.Log.Info().Msg(why)
		}
		return true, fork, err
	}
	return false, fork, nil
}
