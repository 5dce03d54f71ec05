package matrix

import (
	"context"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/shards"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Part is a run's part in a CI matrix (see pipeline/shards): one shard
// (--shard), or the integration of the shards (--integrate); the zero
// Part is a whole run.
type Part struct {
	Shard     string   // --shard: "K-of-N" (K/N accepted)
	Specs     []string // --specs: the shard's specs, as plan printed them
	Integrate bool     // --integrate
	// integrated are the shard states the integration folded in, deleted
	// from origin once the integrated state is pushed.
	integrated []deliver.ShardState
	tmp        string
}

// Check refuses flag combinations that cannot work, before anything runs,
// and spells the shard's name as K-of-N.
func (m *Part) Check(mode deliver.Mode) error {
	switch {
	case m.Shard == "" && len(m.Specs) > 0:
		return exitcode.Usagef("--specs needs --shard K-of-N")
	case m.Shard != "" && m.Integrate:
		return exitcode.Usagef("--shard and --integrate: a job is a shard or the integration, not both")
	case (m.Shard != "" || m.Integrate) && !meetInGit(mode):
		return exitcode.Usagef("--shard and --integrate need a delivery whose state travels in git (--deliver %s), not %s: shards meet only through git", deliver.OrList(deliver.NamesOf(meetInGit)), mode.Name)
	}
	if m.Shard != "" {
		k, n, err := shards.ParseName(m.Shard)
		if err != nil {
			return &exitcode.UsageError{Err: err}
		}
		m.Shard = shards.Name(k, n)
	}
	return nil
}

// Prepare sets up the run after the checkout is on the delivery branch:
// a shard keeps only its specs and pushes its state to its own ref; the
// integration folds the shards' states into the project's .ralph.
func (m *Part) Prepare(ctx context.Context, states States, log zerolog.Logger, p *project.Project, s *deliver.Session) error {
	switch {
	case m.Shard != "":
		specs := m.Specs
		if len(specs) == 0 { // plan again: the same state gives the same plan
			k, n, _ := shards.ParseName(m.Shard)
			planned, err := Planned(ctx, states, p, n)
			if err != nil {
				return err
			}
			for _, sh := range planned {
				if sh.Index == k {
					specs = sh.Specs
				}
			}
			if len(specs) == 0 {
				log.Warn().Str("shard", m.Shard).Msg("the plan gives this shard no spec")
			}
		}
		if err := p.Restrict(specs); err != nil {
			return exitcode.New(exitcode.Usage, err)
		}
		_, n, _ := shards.ParseName(m.Shard)
		s.StateRef, s.SeedRef = deliver.ShardRef(s.Target.Branch, m.Shard), deliver.StateRef(s.Target.Branch)
		s.Retries = 3 + 2*n // every shard pushes to the branch
		log.Info().Str("shard", m.Shard).Strs("specs", specs).Msg("shard of a matrix: these specs only")
	case m.Integrate:
		return m.fold(ctx, log, p, s)
	}
	return nil
}

// fold reads, through git, the branch's integrated state and every
// shard's, and has shards.Integrate merge them (the multi-spec rule across
// shards) into the project's .ralph, adopted by the session.
func (m *Part) fold(ctx context.Context, log zerolog.Logger, p *project.Project, s *deliver.Session) error {
	var err error
	if m.tmp, err = os.MkdirTemp("", "ralph-ci-integrate-"); err != nil {
		return err
	}
	g, branch := s.Git, s.Target.Branch
	head, err := g.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return exitcode.New(exitcode.Failure, err)
	}
	baseDir := filepath.Join(m.tmp, "base")
	read, err := deliver.ReadState(ctx, g, s.Binder, branch, baseDir)
	if err != nil {
		return exitcode.New(exitcode.Failure, err)
	}
	if read.State != "" && !read.Bound {
		log.Warn().Msg(deliver.Unbound(read.Ref, read.Binding))
	}
	base := shards.Folder{Dir: baseDir}
	if read.Found() {
		if base.Changed, err = deliver.ChangedSince(ctx, g, read.Described, head); err != nil {
			return exitcode.New(exitcode.Failure, err)
		}
	}
	fetched, err := deliver.FetchShardStates(ctx, g, s.Binder, branch, filepath.Join(m.tmp, "shards"))
	if err != nil {
		return exitcode.New(exitcode.Failure, err)
	}
	var folders []shards.Folder
	byName := map[string]deliver.ShardState{}
	for _, sh := range fetched {
		if sh.Unbound != "" {
			log.Warn().Str("shard", sh.Name).Msg(sh.Unbound + " (not integrated)")
			continue
		}
		folders = append(folders, shards.Folder{Name: sh.Name, Dir: sh.Dir, Changed: sh.Changed, Time: sh.Time})
		byName[sh.Name] = sh
	}
	folded, placed, err := shards.Integrate(state.At(p.Root).Path(), base, folders)
	if err != nil {
		return exitcode.New(exitcode.Failure, err)
	}
	for _, pl := range placed {
		if pl.Dropped {
			log.Info().Str("spec", pl.Path).Str("shard", pl.Shard).Msg("verified before files it has not seen changed: 3/3 drops to 2/3, verified again on the integrated commit")
		}
	}
	names := make([]string, 0, len(folded))
	for _, f := range folded {
		m.integrated = append(m.integrated, byName[f.Name])
		names = append(names, f.Name)
	}
	s.Adopt = true
	log.Info().Strs("shards", names).Str("head", head).Msg("integrating the shards' states")
	return nil
}

// Finish deletes the shard states the integration folded in, once the
// integrated state is pushed (pushed); they stay for the next integration
// otherwise. g is the delivery's git (unused off an integration).
func (m *Part) Finish(ctx context.Context, g deliver.Git, pushed bool) error {
	if m.tmp != "" {
		defer os.RemoveAll(m.tmp)
	}
	if !m.Integrate || !pushed {
		return nil
	}
	return deliver.DropShardStates(ctx, g, m.integrated)
}

// meetInGit tells whether a matrix can run under m.
func meetInGit(m deliver.Mode) bool { return m.Shards == deliver.ShardsThroughGit }
