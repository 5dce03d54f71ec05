package job

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/agentuser"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// UseUser picks the user every agent, verification command, judge and
// reviewer runs as (config is the config's box.user, internal/agentuser)
// for the run's host (HostPolicy.User): where ralph-ci is root, a user
// of the agent's own with a HOME of its own, the work tree (tree) lent
// to it; nil for ralph-ci's own user. A log line says which user runs
// them. The returned function gives the tree back to its owner (call it
// once every boxed process is gone).
func (j *Job) UseUser(config, tree string) (*agentuser.Run, func(), error) {
	name, err := agentuser.Pick(config, os.Geteuid())
	if err != nil {
		return nil, func() {}, exitcode.Usagef("%v", err)
	}
	if name == "" || !agentuser.Works {
		who := "ralph-ci's own user"
		if os.Geteuid() == 0 {
			who += " (root without capabilities: box.user is off)"
		}
		j.Log.Info().Int("uid", os.Geteuid()).Msg("box: agents and verification commands run as " + who)
		return nil, func() {}, nil
	}
	u, err := agentuser.Ensure(name, config == "" || config == agentuser.Auto)
	if err != nil {
		return nil, func() {}, exitcode.New(exitcode.Failure, err)
	}
	r, err := agentuser.Open(u, tree, filepath.SplitList(os.Getenv("PATH")))
	if err != nil {
		return nil, func() {}, exitcode.New(exitcode.Failure, err)
	}
	r.Env = agentuser.Toolchains(os.Getenv("HOME"), func(k string) bool { return os.Getenv(k) != "" }, func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.IsDir()
	})
	j.Log.Info().Str("user", u.Name).Strs("toolchains", r.Env).Int("uid", u.UID).Str("home", r.Home).Str("searchable", strings.Join(r.Granted(), ",")).
		Msg("box: agents and verification commands run as a user of their own, the work tree lent to it, given back to its owner at the end")
	return r, func() {
		if err := r.Close(); err != nil {
			j.Log.Error().Err(err).Msg("box: could not give everything back from the agent's user")
		}
	}, nil
}
