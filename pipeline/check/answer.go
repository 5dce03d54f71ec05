package check

import (
	"context"
	"fmt"
	"os/user"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Answer is the answer command: it gives words as the answer to the open
// checkpoint of spec (a path or an id) on a laptop, as a reply on a pull
// request would, by the local user, and records it in the state. The
// error carries the exit code: 7 rejected, 8 escalated.
func Answer(ctx context.Context, j *job.Session, spec string, words []string) error {
	if pr, ok, _ := j.PullRequest(); ok {
		return exitcode.Usagef("pull request #%d: there a checkpoint is answered on the pull request, by a reply to its comment (1 or yes approves; 2 …, 3 … or any other text rejects, with your feedback) or a reaction (+1, -1); ralph-ci answer is for a laptop (docs/checkpoints.md)", pr)
	}
	p, err := j.Load()
	if err != nil {
		return err
	}
	sp, ok := findSpec(p, spec)
	if !ok {
		return exitcode.Usagef("%s: no such spec (ralph-ci check lists them)", spec)
	}
	if sp.Tier != plan.TierVerify {
		return exitcode.Usagef("%s is of the %s tier: it has no human checkpoint", sp.Path, sp.Tier)
	}
	dir := state.At(p.Root)
	lock, st, err := state.Open(dir, state.LockInfo{Command: "answer", Version: j.Version})
	if err != nil {
		return err
	}
	defer lock.Release()
	eff, err := gate.Answer(ctx, gate.Local{Root: p.Root, Out: j.Stdout}, sp, &st, localUser(), strings.Join(words, " "), j.Log)
	if err != nil {
		return exitcode.New(exitcode.Usage, err)
	}
	if err := state.Save(dir, st); err != nil {
		return err
	}
	switch {
	case eff.Ignored != "":
		return exitcode.Printed(exitcode.Usage, fmt.Errorf("%s", eff.Ignored))
	case eff.Escalated:
		return exitcode.Printed(exitcode.Escalated, fmt.Errorf("escalated"))
	case eff.Rejected:
		return exitcode.Printed(exitcode.Rejected, fmt.Errorf("rejected"))
	}
	return nil
}

func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "local"
}

// findSpec finds a spec by path (as check lists it) or id.
func findSpec(p *project.Project, name string) (plan.Spec, bool) {
	for _, sp := range p.Specs {
		if sp.Path == name || sp.ID == name {
			return sp, true
		}
	}
	return plan.Spec{}, false
}
