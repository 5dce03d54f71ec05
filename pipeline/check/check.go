// Package check is the check command below its flags: it validates the
// config and every spec (the project loads them), prints one line per
// spec and the doctor's warnings, then is the merge gate of the verify
// tier: on a pull request or a laptop (Gate), on a schedule over the open
// pull requests (sweep), on a merge group (mergeGroup).
package check

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters/checkreport"
)

// Options are check's.
type Options struct {
	// Wait is how long to read the answers again while a checkpoint waits
	// for one (0: read once); Every how often (DefaultPollInterval).
	Wait, Every time.Duration
	// JSON prints one JSON document (checkreport.Report) instead of the lines.
	JSON bool
}

// DefaultPollInterval is how often check --wait reads the answers again.
const DefaultPollInterval = 15 * time.Second

// giveToken says how to give ralph-ci the job's GitHub token.
const giveToken = "give the job's token (the Action passes its token input; the binary reads RALPH_TOKEN_FD, RALPH_TOKEN_FILE or GITHUB_TOKEN): see docs/troubleshooting.md#no-github-token"

// Run is the check command: validate, list, warn, then the merge gate
// the event asks for. The error carries the exit code.
func Run(ctx context.Context, j *job.Session, o Options) error {
	if o.JSON {
		return runJSON(ctx, j, o)
	}
	return run(ctx, j, o, nil)
}

// run is Run; with rep set, the specs and the warnings go into it
// instead of onto stdout.
func run(ctx context.Context, j *job.Session, o Options, rep *checkreport.Report) error {
	// On pull_request_target the checkout is the base: the pull
	// request (a fork's, maybe) is judged through the API, as a
	// sweep judges each one.
	sweep := j.Env.PR.Sweep() || j.Env.PR.EventName == "pull_request_target"
	queue := j.Env.PR.EventName == "merge_group" // the group's pull requests are judged by their statuses
	t, p, err := j.Trust(sweep || queue)
	if err != nil {
		if !sweep && !queue { // a broken config fails the gate of the pull request
			j.BrokenGate(ctx, err)
		}
		return err
	}
	var warnings []string
	if !sweep {
		warnings = doctorWarnings(ctx, t, p)
	}
	if rep != nil {
		fill(rep, p, warnings)
	} else {
		listSpecs(j.Stdout, p.Specs)
		for _, w := range warnings {
			fmt.Fprintln(j.Stdout, "warning: "+w)
		}
	}
	j.Log.Info().Int("specs", len(p.Specs)).Str("config", p.ConfigPath).Msg("check passed")
	ctx, sig := exitcode.SignalContext(ctx)
	ctx = github.WithTimeout(ctx, p.Config.GitHub.Timeout.Std())
	if mg, ok, merr := j.MergeGroup(); merr != nil || ok {
		if merr != nil {
			return merr
		}
		return mergeGroup(ctx, j, p, mg)
	}
	if sweep { // each pull request's delivered state is judged on its own events
		err = sweepPulls(ctx, j, p, o.Wait)
	} else {
		err = Gate(ctx, t, p, o)
	}
	if exitcode.Of(err) == exitcode.Interrupted {
		return exitcode.New(sig.Code(), err)
	}
	return err
}

// Gate is the merge-gate part of check: it builds the checkpoint channel
// (which on a pull request raises the tiers a pull request tried to
// lower, so that lowering every verify-tier spec cannot skip the gate),
// runs the gate and maps where the checkpoints stand to the exit code.
//
// On a pull request it then sets the one merge-gate status on its head
// (gate.Judge): the checkpoints (with the removal checkpoint of each
// verify-tier spec of the base gone from the head), and whether every
// spec is verified 3/3 at the head: the state delivered for it (delivery
// pr, delivered's rule), else ralph-ci's own earlier gate status on the
// head (prchannel.VerifiedEarlier). The exit code is the checkpoints', then
// delivery pr's rule.
func Gate(ctx context.Context, j *job.Trusted, p *project.Project, o Options) (err error) {
	if o.Every <= 0 {
		return exitcode.Usagef("--poll-interval %v: want a positive duration", o.Every)
	}
	mode := j.Mode
	if pr, ok, _ := j.PullRequest(); ok && j.Env.PR.Token == "" {
		return exitcode.New(exitcode.Failure, fmt.Errorf("pull request #%d and no GitHub token: check reads the answers and posts the checkpoints through the GitHub API; %s", pr, giveToken))
	}
	ch, err := j.Channel(ctx, p)
	if github.IsUnauthorized(err) {
		return exitcode.New(exitcode.Failure, fmt.Errorf("%w\nGitHub refused the token (401): %s", err, giveToken))
	}
	if err != nil {
		return err
	}
	var untrusted string
	if _, local := ch.(gate.Local); !local {
		untrusted = state.Committed(ctx, p.Root)
	}
	defer func() {
		if github.IsUnauthorized(err) {
			err = exitcode.New(exitcode.Failure, fmt.Errorf("%w\nGitHub refused the token (401): %s", err, giveToken))
		}
	}()
	specs := p.Specs
	c, onPR := ch.(*prchannel.Client)
	if onPR { // what left the gate, whatever stands
		for _, left := range c.Left() {
			fmt.Fprintln(j.Stdout, "warning: "+left)
		}
		specs = append(slices.Clip(specs), c.Removals()...)
	}
	res, gated, err := gate.Check{Channel: ch, Specs: specs, Dir: state.At(p.Root), Lock: state.LockInfo{Command: "check", Version: j.Version},
		Wait: o.Wait, Every: o.Every, Log: j.Log, Untrusted: untrusted}.Run(ctx)
	if err != nil {
		if onPR {
			j.SetGate(ctx, p.Config, c, gate.Standing{Failed: err})
		}
		return err
	}
	head, why, derr := delivered(ctx, j, p)
	if onPR {
		s := gate.Standing{Checkpoints: res, Unverified: why, Failed: derr}
		if mode.Gate == deliver.GateOwnStatus && derr == nil {
			s.Unverified, s.Failed = prchannel.VerifiedEarlier(ctx, c, c.Head(), p.Config)
		}
		j.SetGate(ctx, p.Config, c, s)
	}
	if gated {
		code, msg := res.Code()
		if err := j.Shown(res.Lines(), code, msg); err != nil {
			return err
		}
	}
	if derr != nil {
		return derr
	}
	if len(why) > 0 {
		msg := fmt.Sprintf("not verified at the pull request's head %.7s: %s; run the loop again", head, strings.Join(why, "; "))
		j.Log.Warn().Msg(msg)
		return exitcode.Printed(exitcode.Limits, errors.New(msg))
	}
	return nil
}

// listSpecs prints one line per spec: its tier, stages and methods, in
// one buffered write rather than one per spec.
func listSpecs(w io.Writer, specs []plan.Spec) {
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, s := range specs {
		fmt.Fprintf(bw, "%s\ttier=%s\tstages=%s\tmethods=%s\n",
			s.Path, s.Tier, strings.Join(s.StageNames(), ","), strings.Join(s.Methods(), ","))
	}
	_ = bw.Flush()
}
