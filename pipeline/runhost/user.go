package runhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/agentuser"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// UseUser picks the user every agent, verification command, judge and
// reviewer runs as (config is the config's box.user, internal/agentuser)
// for the run's host (Policy.User): where ralph-ci is root, a user
// of the agent's own, held by this run alone (auto: one of the pool's,
// waited for while every one is held) or shared (a name the config
// gives), with a HOME of its own, the work tree (tree) lent to it; nil
// for ralph-ci's own user. Log lines say which user runs them, and what
// was taken back from it (a killed run's processes, ACL entries and
// tree). The returned function gives the tree back to its owner, removes
// the ACL entries and lets the user go (call it once every boxed process
// is gone).
func UseUser(ctx context.Context, log zerolog.Logger, config, tree string) (*agentuser.Run, func(), error) {
	name, err := agentuser.Pick(config, os.Geteuid())
	if err != nil {
		return nil, func() {}, exitcode.Usagef("%v", err)
	}
	if name == "" || !agentuser.Works {
		who := "ralph-ci's own user"
		if os.Geteuid() == 0 {
			who += " (root without capabilities: box.user is off)"
		}
		log.Info().Int("uid", os.Geteuid()).Msg("box: agents and verification commands run as " + who)
		return nil, func() {}, nil
	}
	pool := config == "" || config == agentuser.Auto
	h, err := agentuser.Take(ctx, name, pool, func(names []string) {
		if pool {
			log.Warn().Strs("users", names).Str("locks", agentuser.LockDir).
				Msg("box: every user of the agent's pool is held by another run on this machine: waiting for one to end")
			return
		}
		log.Warn().Str("user", name).Str("locks", agentuser.LockDir).
			Msg("box: the agent's user is held alone by another run (one of the pool's, or one taking back what a killed run left): waiting")
	})
	if err != nil {
		return nil, func() {}, exitcode.New(exitcode.Failure, err)
	}
	logCleaned(log.Warn(), h.User, h.Cleaned, "box: took back from the agent's user what a killed run left")
	release := func() {
		c, err := h.Release()
		logCleaned(log.Info(), h.User, c, "box: took back the search-only ACL entries of the agent's user")
		if err != nil {
			log.Error().Err(err).Str("user", h.Name).Msg("box: could not take back everything from the agent's user")
		}
	}
	r, err := agentuser.Open(h, tree, filepath.SplitList(os.Getenv("PATH")))
	if err != nil {
		release()
		return nil, func() {}, exitcode.New(exitcode.Failure, err)
	}
	r.Env = agentuser.Toolchains(os.Getenv("HOME"), func(k string) bool { return os.Getenv(k) != "" }, func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.IsDir()
	})
	log.Info().Str("user", h.Name).Bool("shared", h.Shared).Strs("toolchains", r.Env).Int("uid", h.UID).Str("home", r.Home).Str("searchable", strings.Join(r.Granted(), ",")).
		Msg("box: agents and verification commands run as a user of their own, the work tree lent to it, given back to its owner at the end")
	return r, func() {
		if err := r.Close(); err != nil {
			log.Error().Err(err).Msg("box: could not give everything back from the agent's user")
		}
		release()
	}, nil
}

// logCleaned logs what was taken back from u (c), when anything was.
func logCleaned(ev *zerolog.Event, u agentuser.User, c agentuser.Cleaned, msg string) {
	if c.Empty() {
		return
	}
	procs := func(ps []agentuser.Proc) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = fmt.Sprintf("%d (%s)", p.PID, p.Comm)
		}
		return out
	}
	if len(c.Alive) > 0 {
		ev.Strs("alive", procs(c.Alive)).Str("note", "processes of a user box.user names are not ralph-ci's to kill: they may reach this run's agent")
	}
	ev.Str("user", u.Name).Int("uid", u.UID).Strs("killed", procs(c.Killed)).Strs("acl_removed", c.Revoked).Strs("given_back", c.GivenBack).Msg(msg)
}
