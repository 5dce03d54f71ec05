package deliver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RescueError stops delivery: the work could not be pushed and was saved
// where a person can get it (a rescue branch or a git bundle).
type RescueError struct {
	Cause error
	// Where names the rescue: "branch ralph-ci/rescue-…" or a bundle's path.
	Where string
}

// Error says what failed and where the work is.
func (e *RescueError) Error() string {
	if e.Where == "" {
		return e.Cause.Error()
	}
	return fmt.Sprintf("%v; the loop's work is saved in %s", e.Cause, e.Where)
}

// Unwrap returns the cause.
func (e *RescueError) Unwrap() error { return e.Cause }

// push publishes HEAD to the branch and the state commit built by state
// (called again after each rebase) to the branch's state ref, in one
// atomic push, never forced. After a non-fast-forward it fetches the new
// tip, rebases the loop's commits (base..HEAD) onto it and retries, at
// most s.retries() times; foreign are the files the others' commits
// changed, relative to the project root.
func (s *Session) push(ctx context.Context, state func() (string, error)) (foreign []string, err error) {
	b := s.Target.Branch
	for attempt := 0; ; attempt++ {
		head, err := s.Git.head()
		if err != nil {
			return foreign, err
		}
		if err := s.checkRange(ctx, head); err != nil {
			return foreign, s.rescue(ctx, err)
		}
		st, err := state()
		if err != nil {
			return foreign, err
		}
		if s.Target.ForkURL != "" {
			if err := s.pushFork(ctx, head, st); err != nil {
				return foreign, err
			}
			if s.Target.ForkURL != "" {
				return foreign, nil
			} // refused: on to the base repository's branch
		}
		_, perr := s.Git.Run(ctx, "push", "--atomic", "--quiet", "origin", head+":refs/heads/"+b, st+":"+s.stateRef())
		if perr == nil {
			s.pushed(ctx, head, st)
			return foreign, nil
		}
		if ctx.Err() != nil {
			return foreign, ctx.Err()
		}
		tip, ok, err := s.Git.fetchBranch(ctx, b, 1)
		switch {
		case err != nil:
			return foreign, s.rescue(ctx, fmt.Errorf("push to %s refused (%v), and fetching it failed: %w", b, perr, err))
		case !ok || tip == s.base:
			return foreign, s.rescue(ctx, fmt.Errorf("push to %s refused: %w", b, perr))
		case attempt >= s.retries():
			return foreign, s.rescue(ctx, fmt.Errorf("push to %s: still behind after %d rebases onto commits pushed meanwhile", b, attempt))
		}
		theirs, err := s.Git.Run(ctx, "diff", "--relative", "--name-only", "--no-renames", s.base, tip)
		if err != nil {
			return foreign, err
		}
		for _, f := range lines(theirs) {
			if !isRalph("/" + f) {
				foreign = append(foreign, f)
			}
		}
		rg := s.Git
		rg.Env = append(append([]string{}, s.Git.Env...), s.Identity.env()...)
		if _, err := rg.Run(ctx, "rebase", "--quiet", "--no-autosquash", "--onto", tip, s.base, b); err != nil {
			_, _ = s.Git.Run(ctx, "rebase", "--abort")
			return foreign, s.rescue(ctx, fmt.Errorf("rebase the loop's commits onto %.12s, pushed to %s meanwhile: conflict: %w", tip, b, err))
		}
		s.base = tip
	}
}

// pushFork pushes head to the fork's branch (Target.ForkURL, with the
// push token internal/git gives that push alone), then the state commit
// st to the base repository's state ref. A push the fork refuses (its
// owner took back maintainers' access, someone pushed to it meanwhile, a
// token that may not) falls back, said through Warn: the target becomes
// the base repository's branch of the fork's pull request (Own, with a
// pull request opened from it), which the caller then pushes to.
func (s *Session) pushFork(ctx context.Context, head, st string) error {
	t := s.Target
	if _, err := s.Git.Run(ctx, "push", "--quiet", t.ForkURL, head+":refs/heads/"+t.ForkBranch); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.warn(fmt.Sprintf("delivery: the fork refused the push to its branch %s (%s): the work goes to %s of the base repository instead, with a pull request opened from it", t.ForkBranch, refusal(err), t.Branch))
		s.Target.ForkURL, s.Target.ForkBranch, s.Target.Own = "", "", true
		return nil
	}
	if _, err := s.Git.Run(ctx, "push", "--quiet", "origin", st+":"+s.stateRef()); err != nil {
		return fmt.Errorf("the work is on the fork's branch %s at %.12s, but its state could not be pushed to %s: %w (the next run verifies the specs again)", t.ForkBranch, head, s.stateRef(), err)
	}
	s.pushed(ctx, head, st)
	return nil
}

// refusal is why git push was refused, in one line: the line naming
// the ref ("! [rejected] … (fetch first)"), else the first line git
// printed, else the error.
func refusal(err error) string {
	var ge *GitError
	if !errors.As(err, &ge) || strings.TrimSpace(ge.Stderr) == "" {
		return err.Error()
	}
	out := lines(ge.Stderr)
	for _, l := range out {
		if strings.HasPrefix(strings.TrimSpace(l), "! ") {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return strings.TrimSpace(out[0])
}

// pushed records that head and the state commit st describing it are
// on origin, and binds st to the commit it describes.
func (s *Session) pushed(ctx context.Context, head, st string) {
	s.base, s.stateTip = head, st
	s.dropPacks(st)
	if err := bind(ctx, s.Binder, Binding{Kind: kindOf(s.stateRef(), s.Target.Branch), State: st, Described: s.described}); err != nil {
		s.warn(err.Error() + ": the next run verifies the specs again")
	}
}

// checkRange refuses to push commits that change workflow or .ralph files.
func (s *Session) checkRange(ctx context.Context, head string) error {
	var wf, ralph []string
	var err error
	if k := s.known; k.head == head && k.base == s.base {
		wf, ralph = classify(k.files) // the one commit ralph-ci just made
	} else {
		wf, ralph, err = forbidden(ctx, s.Git, s.base, head)
	}
	switch {
	case err != nil:
		return err
	case len(wf) > 0:
		return &WorkflowError{Files: wf}
	case len(ralph) > 0:
		return fmt.Errorf("the loop's commits hold ralph-ci state files, which never enter the pull request: %s (commit them elsewhere, or remove them from the agent's commits)", strings.Join(ralph, ", "))
	}
	return nil
}

// rescue saves the loop's commits (base..HEAD) where a person can get
// them: a branch ralph-ci/rescue-<branch>-<sha> when it can be pushed,
// else a git bundle in the reports folder. It returns a *RescueError.
func (s *Session) rescue(ctx context.Context, cause error) error {
	head, err := s.Git.head()
	if err != nil {
		return &RescueError{Cause: errors.Join(cause, err)}
	}
	if head == s.base {
		return &RescueError{Cause: cause, Where: "no commit (the loop had no work to save)"}
	}
	short := head[:min(len(head), 12)]
	var wf *WorkflowError
	if s.Push && !s.Target.Fork && !errors.As(cause, &wf) {
		name := "ralph-ci/rescue-" + sanitize(s.Target.Branch) + "-" + short
		if _, err := s.Git.Run(ctx, "push", "--quiet", "origin", head+":refs/heads/"+name); err == nil {
			return &RescueError{Cause: cause, Where: "branch " + name}
		}
	}
	if err := os.MkdirAll(s.Reports, 0o755); err != nil {
		return &RescueError{Cause: errors.Join(cause, fmt.Errorf("rescue bundle: %w", err))}
	}
	path := filepath.Join(s.Reports, "ralph-ci-rescue-"+short+".bundle")
	rng := "HEAD"
	if s.base != "" {
		rng = s.base + "..HEAD"
	}
	if _, err := s.Git.Run(ctx, "bundle", "create", "--quiet", path, rng); err != nil {
		return &RescueError{Cause: errors.Join(cause, fmt.Errorf("rescue bundle: %w", err))}
	}
	return &RescueError{Cause: cause, Where: fmt.Sprintf("the git bundle %s (git fetch %s HEAD, in a clone that has %.12s)", path, filepath.Base(path), s.base)}
}
