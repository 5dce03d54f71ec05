package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/schema"
)

func newCheckCommand(opts *globalOptions) *cobra.Command {
	var wait, every time.Duration
	var deliverMode string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate the config and every spec's front matter",
		Long: `check validates the config file and the front matter of every discovered
spec against the schemas built into ralph-ci. Every problem is printed as
file:line:col: field: message, and the exit code is 2. When all is valid it
prints one line per spec: its verification tier, stages and methods, then
a "warning:" line for what is valid but will not work as expected (an
agent CLI not on PATH, a cost budget no agent reports, a pull request's
event without a token, delivery from below the top of the repository),
each with what to do; warnings do not change the exit code.

Then it is the merge gate of the verify tier: it reads the answers given to
the checkpoints (reply comments and reactions on the pull request of the
GitHub Actions event, from authorized people only; on a laptop, the answers
given with ralph-ci answer), records the decisions, posts escalations and
updates the commit statuses. It exits 0 only when every verify-tier spec is
approved for the current head commit (or its verification was skipped
after an escalation); 6 while a checkpoint waits, 7 when one was rejected
(the spec is back at work), 8 when one escalated. --wait reads the
answers again every 15 seconds while a checkpoint waits for one (pending
or escalated), at most for the given duration; the exit code is then
where they stand.

On a schedule or workflow_dispatch (no pull request in the event) it
reads the checkpoints of the open pull requests instead, as it would on
each one's comment: those whose head has a ralph-ci/<spec> status that is
not success, at most github.max_pull_requests per run, one pass each,
each judged with its own specs (read at its head) and the approvers and
tiers of its base; no specs in the checkout is fine then. It prints
"#N<TAB>SPEC<TAB>checkpoint=..." per checkpoint read and names the pull
requests left for the next run; a pull request that cannot be read does
not stop the others. Exit: 1 if one could not be read, 3 if the API's
rate limit stopped the walk, else where the checkpoints read stand.`,
		Example: `  ralph-ci check
  ralph-ci check --config ci/ralph.yaml
  ralph-ci -C examples/quickstart check
  ralph-ci check --wait 10m          # the merge gate: wait for the human answers`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			// On pull_request_target the checkout is the base: the pull
			// request (a fork's, maybe) is judged through the API, as a
			// sweep judges each one.
			sweep := opts.env.pr.Sweep() || opts.env.pr.EventName == "pull_request_target"
			queue := opts.env.pr.EventName == "merge_group" // the group's pull requests are judged by their statuses
			p, err := loadProjectSpecs(opts, sweep || queue)
			if err != nil {
				if !sweep && !queue { // a broken config fails the gate of the pull request
					brokenGate(cmd.Context(), opts, err)
				}
				return err
			}
			listSpecs(opts.stdout, p.Specs)
			if mode, merr := deliveryMode(deliverMode, p.Config); merr == nil && !sweep {
				doctorWarnings(cmd.Context(), opts, p, mode)
			}
			opts.log.Info().Int("specs", len(p.Specs)).Str("config", p.ConfigPath).Msg("check passed")
			ctx, sig := signalContext(cmd.Context())
			if mg, ok, merr := opts.env.pr.MergeGroup(); merr != nil || ok {
				if merr != nil {
					return merr
				}
				return checkMergeGroup(ctx, opts, p, mg)
			}
			if sweep { // each pull request's delivered state is judged on its own events
				err = checkSweep(ctx, opts, p, wait)
			} else {
				err = checkGate(ctx, opts, p, wait, every, deliverMode)
			}
			if exitcode.Of(err) == exitcode.Interrupted {
				return exitcode.New(sig.code(), err)
			}
			return err
		}),
	}
	cmd.Flags().DurationVar(&wait, "wait", 0, "poll for checkpoint answers for at most `DURATION` (e.g. 10m) while any waits for one")
	// Internal, for tests: how often --wait reads the answers again. Hidden
	// because a shorter interval only spends the API's rate limit.
	cmd.Flags().DurationVar(&every, "poll-interval", defaultPollInterval, "internal: how often --wait reads the answers")
	_ = cmd.Flags().MarkHidden("poll-interval")
	cmd.Flags().StringVar(&deliverMode, "deliver", "", "with `MODE` pr on a pull request, also require every spec verified 3/3 at its head (default: delivery.mode)")
	return cmd
}

// giveToken says how to give ralph-ci the job's GitHub token.
const giveToken = "give the job's token (the Action passes its token input; the binary reads RALPH_TOKEN_FD, RALPH_TOKEN_FILE or GITHUB_TOKEN): see docs/troubleshooting.md#no-github-token"

// defaultPollInterval is how often check --wait reads the answers again.
const defaultPollInterval = 15 * time.Second

// checkGate is the merge-gate part of check: it builds the checkpoint
// channel (which on a pull request raises the tiers a pull request tried
// to lower, so that lowering every verify-tier spec cannot skip the gate),
// runs the gate and maps where the checkpoints stand to the exit code.
//
// On a pull request it then sets the one merge-gate status on its head
// (gate.Judge): the checkpoints (with the removal checkpoint of each
// verify-tier spec of the base gone from the head), and whether every
// spec is verified 3/3 at the head: the state delivered for it (delivery
// pr, checkDelivered's rule), else ralph-ci's own earlier gate status on
// the head (verifiedEarlier). The exit code is the checkpoints', then
// delivery pr's rule.
func checkGate(ctx context.Context, opts *globalOptions, p *project.Project, wait, every time.Duration, deliverMode string) (err error) {
	if every <= 0 {
		return &usageError{fmt.Errorf("--poll-interval %v: want a positive duration", every)}
	}
	mode, err := deliveryMode(deliverMode, p.Config)
	if err != nil {
		return err
	}
	if pr, ok, _ := opts.env.pr.PullRequest(); ok && opts.env.pr.Token == "" {
		return exitcode.New(exitcode.Failure, fmt.Errorf("pull request #%d and no GitHub token: check reads the answers and posts the checkpoints through the GitHub API; %s", pr, giveToken))
	}
	ch, err := checkpointChannel(ctx, opts, p)
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
			fmt.Fprintln(opts.stdout, "warning: "+left)
		}
		specs = append(slices.Clip(specs), c.Removals()...)
	}
	res, gated, err := gate.Check{Channel: ch, Specs: specs, Dir: state.At(p.Root), Lock: state.LockInfo{Command: "check", Version: versionString()},
		Wait: wait, Every: every, Log: opts.log, Untrusted: untrusted}.Run(ctx)
	if err != nil {
		if onPR {
			setGate(ctx, opts, p.Config, c, gate.Standing{Failed: err})
		}
		return err
	}
	head, why, derr := checkDelivered(ctx, opts, p, mode)
	if onPR {
		s := gate.Standing{Checkpoints: res, Unverified: why, Failed: derr}
		if mode != schema.DeliverPR && derr == nil {
			s.Unverified, s.Failed = verifiedEarlier(ctx, c, c.Head(), gateContext(p.Config))
		}
		setGate(ctx, opts, p.Config, c, s)
	}
	if gated {
		code, msg := res.Code()
		if err := standings(opts, res.Lines(), code, msg); err != nil {
			return err
		}
	}
	if derr != nil {
		return derr
	}
	if len(why) > 0 {
		msg := fmt.Sprintf("not verified at the pull request's head %.7s: %s; run the loop again", head, strings.Join(why, "; "))
		opts.log.Warn().Msg(msg)
		return exitcode.Printed(exitcode.Limits, errors.New(msg))
	}
	return nil
}

// standings prints where the checkpoints stand, one line each, logs msg
// and returns the exit code (nil for OK), already shown.
func standings(opts *globalOptions, lines []string, code exitcode.Code, msg string) error {
	for _, line := range lines {
		fmt.Fprintln(opts.stdout, line)
	}
	if code == exitcode.OK {
		opts.log.Info().Msg(msg)
		return nil
	}
	opts.log.Warn().Str("exit", code.Class()).Msg(msg)
	return exitcode.Printed(code, errors.New(msg))
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
