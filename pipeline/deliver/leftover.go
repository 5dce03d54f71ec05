package deliver

import (
	"context"
	"fmt"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/gitstate"
)

// The agent works in a checkout whose .git it can write: it may leave a
// merge or a rebase in progress, HEAD on another branch or moved back,
// a lock on the index, new tags. ralph-ci never commits through that: it
// reads the checkout's .git as data (pipeline/gitstate) before and after
// each rotation, rejects a rotation that left such a state and puts the
// checkout back before anything is committed.

// snapGit records the checkout's git state as ralph-ci leaves it, the
// reference InspectGit judges the next rotation against.
func (s *Session) snapGit() error {
	if s.checkout.GitDir == "" {
		c, err := igit.Find(s.Git.Dir)
		if err != nil {
			return fmt.Errorf("delivery: %w", err)
		}
		s.checkout = c
	}
	snap, err := gitstate.Read(s.checkout.GitDir, s.checkout.CommonDir)
	if err != nil {
		return fmt.Errorf("delivery: %w", err)
	}
	s.gitBefore = &snap
	return nil
}

// checkClean refuses to start in a checkout with an operation in
// progress or a lock on its index: ralph-ci would commit through it.
func (s *Session) checkClean() error {
	b := s.gitBefore
	if b == nil {
		return nil
	}
	var what []string
	for _, o := range b.Ops {
		what = append(what, o+" in progress")
	}
	if b.Lock {
		what = append(what, "a lock on its index (.git/index.lock)")
	}
	if len(what) > 0 {
		return fmt.Errorf("delivery: the checkout has %s: finish or abort it first (ralph-ci never commits through it)", strings.Join(what, " and "))
	}
	return nil
}

// InspectGit is called once the rotation's agent has ended, before the
// rotation is judged: it names the git state the agent left that ralph-ci
// never commits through ("" when none), having put the checkout back: the
// markers of the operation and the lock removed, HEAD and the refs as
// they were (the agent's own commits on the branch stay), the index and
// work tree reset to HEAD when they no longer belong to it.
func (s *Session) InspectGit(ctx context.Context) (string, error) {
	if s.gitBefore == nil {
		return "", nil
	}
	after, err := gitstate.Read(s.checkout.GitDir, s.checkout.CommonDir)
	if err != nil {
		return "", fmt.Errorf("delivery: %w", err)
	}
	descends := func(from, to string) bool {
		_, err := s.Git.Run(ctx, "merge-base", "--is-ancestor", from, to)
		return err == nil
	}
	why := gitstate.Judge(*s.gitBefore, after, descends)
	if len(why) == 0 {
		return "", nil
	}
	reset, err := gitstate.Restore(s.checkout.GitDir, s.checkout.CommonDir, *s.gitBefore, after, descends)
	if err != nil {
		return "", fmt.Errorf("delivery: %w", err)
	}
	if reset {
		if _, err := s.Git.Run(ctx, "reset", "--quiet", "--hard", "HEAD"); err != nil {
			return "", fmt.Errorf("delivery: reset the checkout after %s: %w", strings.Join(why, "; "), err)
		}
	}
	return gitstate.Reason(why), s.snapGit()
}
