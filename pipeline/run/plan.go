package run

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/matrix"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// PlanOptions are plan's: how many shards, and --deliver.
type PlanOptions struct {
	Shards int
}

// Plan is the plan command: it loads the project, splits its specs into
// at most o.Shards shards and prints the matrix as JSON (also the step
// outputs matrix and shards in GitHub Actions).
func Plan(ctx context.Context, j *job.Session, o PlanOptions) error {
	if o.Shards < 1 {
		return exitcode.Usagef("--shards %d: want 1 or more", o.Shards)
	}
	t, p, err := j.Trust(false)
	if err != nil {
		return err
	}
	ctx = github.WithTimeout(ctx, p.Config.GitHub.Timeout.Std())
	planned, err := matrix.Planned(ctx, j, p, t.Mode, o.Shards)
	if err != nil {
		return err
	}
	raw, err := matrix.JSON(planned)
	if err != nil {
		return err
	}
	fmt.Fprintln(j.Stdout, string(raw))
	if out := j.Env.Actions.Output; out != "" {
		if err := actions.AppendOutputs(out, []actions.Output{{Name: "matrix", Value: string(raw)}, {Name: "shards", Value: strconv.Itoa(len(planned))}}); err != nil {
			return err
		}
	}
	j.Log.Info().Int("specs", len(p.Specs)).Int("shards", len(planned)).Msg("shards planned")
	return nil
}
