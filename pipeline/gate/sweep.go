package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Reactions start no workflow, so a checkpoint answered by 👍 is read
// only when check next runs on its pull request. On an event without a
// pull request (schedule, workflow_dispatch) check therefore sweeps the
// repository: it walks the open pull requests whose head carries a
// ralph-ci/<spec> commit status that is not success (a checkpoint waits
// for an answer, or was rejected), and syncs each one as check on that
// pull request's issue_comment would: answers read (reactions included),
// decisions recorded in the checkpoint comment, escalations posted,
// statuses set on its head. The checkout (the default branch) plays no
// part in the judging: each pull request's specs are read at its head and
// its tiers and approvers from its base (Pulls.Channel).
//
// It is bounded and polite: at most Limit pull requests are read, one
// pass each; the walk starts at a different place each run (Turn), so
// every open pull request gets its turn; a rate limit stops the walk and
// the pull requests not read are named for the next run. It presents no
// checkpoint (its state is empty: nothing is verified 3/3 in it), it only
// edits the comments run presented, so two overlapping sweeps compute the
// same records from the same answers and cannot duplicate a comment.

// Pull is an open pull request.
type Pull struct {
	Number int
	Head   string // its head commit, as listed
}

// Pulls is the repository side of a sweep (github/prchannel).
type Pulls interface {
	// OpenPulls lists the open pull requests, oldest first.
	OpenPulls(ctx context.Context) ([]Pull, error)
	// Checkpoints reads the ralph-ci/<spec> commit statuses of p's head:
	// the specs that have one, and whether any is not success.
	Checkpoints(ctx context.Context, p Pull) (specs []string, waiting bool, err error)
	// Channel builds p's channel and the plans of specs as p's head has
	// them, their tiers raised by its base (a spec gone from the head is
	// left out).
	Channel(ctx context.Context, p Pull, specs []string) (Channel, []plan.Spec, error)
}

// Sweep is check on an event without a pull request.
type Sweep struct {
	Pulls Pulls
	Limit int // pull requests read per run, >= 1
	// Turn is the workflow run's number (GITHUB_RUN_NUMBER, 0 unknown):
	// run n starts its walk (n-1)*Limit pull requests further on.
	Turn int
	// RateLimited tells an error that is the API's rate limit.
	RateLimited func(error) bool
	Log         zerolog.Logger
	// Judged, when set, is called with each pull request judged and its
	// channel: check sets the one merge-gate status there.
	Judged func(ctx context.Context, p Pull, ch Channel, res Result, err error)
}

// Judged is one pull request the sweep read.
type Judged struct {
	PR     int
	Result Result
	Err    error // its checkpoints could not be read or published
}

// Swept is what a sweep found.
type Swept struct {
	Judged []Judged
	// Approved are pull requests whose checkpoint statuses are all
	// success on their head: nothing waits there, nothing was read.
	Approved []int
	// Left are the pull requests not looked at this run: the limit was
	// reached, or the rate limit (Limited) stopped the walk.
	Left    []int
	Limited error
}

// Has tells whether the sweep judged (and set the gate of) pull request
// n, or left it for later.
func (s Swept) Has(n int) bool {
	for _, j := range s.Judged {
		if j.PR == n {
			return true
		}
	}
	return slices.Contains(s.Left, n)
}

// Run walks the open pull requests.
func (s Sweep) Run(ctx context.Context) (Swept, error) {
	if s.Limit < 1 {
		return Swept{}, fmt.Errorf("limit of pull requests per run %d: want at least 1", s.Limit)
	}
	var out Swept
	pulls, err := s.Pulls.OpenPulls(ctx)
	if err != nil {
		if s.RateLimited(err) {
			out.Limited = err
			return out, nil
		}
		return out, fmt.Errorf("list the open pull requests: %w", err)
	}
	for _, p := range Rotate(pulls, s.Turn, s.Limit) {
		if out.Limited != nil || len(out.Judged) >= s.Limit {
			out.Left = append(out.Left, p.Number)
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, exitcode.New(exitcode.Interrupted, err)
		}
		log := s.Log.With().Int("pr", p.Number).Logger()
		specs, waiting, err := s.Pulls.Checkpoints(ctx, p)
		switch {
		case err != nil && s.RateLimited(err):
			out.Limited = err
			out.Left = append(out.Left, p.Number)
		case err != nil:
			out.Judged = append(out.Judged, Judged{PR: p.Number, Err: fmt.Errorf("commit statuses of #%d: %w", p.Number, err)})
		case len(specs) == 0:
			log.Debug().Msg("no checkpoint on this pull request's head")
		case !waiting:
			out.Approved = append(out.Approved, p.Number)
		default:
			res, err := s.judge(ctx, p, specs, log)
			if err != nil && s.RateLimited(err) {
				out.Limited = err
				out.Left = append(out.Left, p.Number)
				continue
			}
			out.Judged = append(out.Judged, Judged{PR: p.Number, Result: res, Err: err})
		}
	}
	if out.Limited != nil {
		s.Log.Warn().Err(out.Limited).Ints("left", out.Left).Msg("the GitHub API's rate limit stopped the walk: the pull requests left are read by the next run")
	} else if len(out.Left) > 0 {
		s.Log.Info().Int("limit", s.Limit).Ints("left", out.Left).Msg("github.max_pull_requests reached: the pull requests left are read by the next run")
	}
	return out, nil
}

// judge syncs one pull request once, as check on its issue_comment does.
// Its state is its checkpoint comments (their markers); the checkout's
// state.json describes no pull request, so an empty one stands in and is
// not saved.
func (s Sweep) judge(ctx context.Context, p Pull, specs []string, log zerolog.Logger) (Result, error) {
	ch, plans, err := s.Pulls.Channel(ctx, p, specs)
	if err != nil {
		return Result{}, err
	}
	var st state.State
	res, err := Sync(ctx, ch, plans, &st, log)
	if s.Judged != nil && (err == nil || !s.RateLimited(err)) {
		s.Judged(ctx, p, ch, res, err)
	}
	if err != nil {
		return res, err
	}
	code, msg := res.Code()
	log.Info().Str("exit", code.Class()).Msg(msg)
	return res, nil
}

// Rotate orders pulls for run number turn: run n starts (n-1)*limit
// places further on, wrapping around, so that over the runs every pull
// request comes first in its turn. turn 0 (unknown) starts at the oldest.
func Rotate(pulls []Pull, turn, limit int) []Pull {
	if len(pulls) == 0 || turn < 1 {
		return pulls
	}
	start := ((turn - 1) * limit) % len(pulls)
	return append(append([]Pull{}, pulls[start:]...), pulls[:start]...)
}

// Code is the sweep's exit code and the message that says it: Failure
// when a pull request could not be read, Limits when the rate limit left
// some for the next run, else where the checkpoints read stand (as
// Result.Code, escalated before rejected before pending).
func (s Swept) Code() (exitcode.Code, string) {
	var failed []error
	for _, j := range s.Judged {
		if j.Err != nil {
			failed = append(failed, fmt.Errorf("#%d: %w", j.PR, j.Err))
		}
	}
	switch {
	case len(failed) > 0:
		return exitcode.Failure, fmt.Sprintf("the checkpoints of %d pull request(s) could not be read: %v", len(failed), errors.Join(failed...))
	case s.Limited != nil:
		return exitcode.Limits, fmt.Sprintf("rate limited: pull requests %v are left for the next run", numbers(s.Left))
	}
	var all Result
	for _, j := range s.Judged {
		tag := func(specs []string) []string {
			out := make([]string, len(specs))
			for i, sp := range specs {
				out[i] = fmt.Sprintf("#%d %s", j.PR, sp)
			}
			return out
		}
		all.Passed = append(all.Passed, tag(j.Result.Passed)...)
		all.Pending = append(all.Pending, tag(j.Result.Pending)...)
		all.Rework = append(all.Rework, tag(j.Result.Rework)...)
		all.Escalated = append(all.Escalated, tag(j.Result.Escalated)...)
	}
	code, msg := all.Code()
	if code == exitcode.OK {
		msg = fmt.Sprintf("every checkpoint read is approved for its pull request's head (%d pull request(s) read)", len(s.Judged))
	}
	return code, msg
}

func numbers(prs []int) []string {
	out := make([]string, len(prs))
	for i, n := range prs {
		out[i] = fmt.Sprintf("#%d", n)
	}
	return out
}

// Lines are the standings as check prints them: per pull request read,
// "#N\tSPEC\tcheckpoint=passed|pending|rejected|escalated" (Result.Lines)
// or "#N\terror=..."; then "#N\tapproved" for those whose statuses say
// every checkpoint is approved, and "#N\tleft" for those left for the
// next run.
func (s Swept) Lines() []string {
	var out []string
	for _, j := range s.Judged {
		if j.Err != nil {
			out = append(out, fmt.Sprintf("#%d\terror=%s", j.PR, text.OneLine(j.Err.Error(), 0)))
			continue
		}
		for _, l := range j.Result.Lines() {
			out = append(out, fmt.Sprintf("#%d\t%s", j.PR, l))
		}
	}
	for _, n := range s.Approved {
		out = append(out, fmt.Sprintf("#%d\tapproved", n))
	}
	for _, n := range s.Left {
		out = append(out, fmt.Sprintf("#%d\tleft", n))
	}
	return out
}
