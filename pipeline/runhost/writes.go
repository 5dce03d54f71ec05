package runhost

import (
	"fmt"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/agentuser"
	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/livedir"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

// UseWrites makes the run's scratch folder (private, the agent's user's
// when it has one of its own, removed by the returned function) and
// decides what the boxed processes may change
// (agent.Writes): where the kernel has Landlock and the config's
// box.landlock is auto, only the work tree of root with its git folders,
// the scratch folder, /dev's devices, box.writable, and each process's
// HOME and tool folders, never ralph-ci's own git folder. The log says
// once what holds, or that nothing does and what that costs.
func UseWrites(log zerolog.Logger, root string, box schema.Box, user *agentuser.Run) (*agent.Writes, func(), error) {
	dir, err := livedir.Make(scratchPrefix) // and the scratch folders of runs that are gone (killed with SIGKILL)
	if err != nil {
		return nil, nil, exitcode.New(exitcode.Failure, fmt.Errorf("the run's scratch folder: %w", err))
	}
	scratch := dir.Path
	done := func() { _ = dir.Remove() }
	if user != nil { // the agent's user of its own writes there
		if err := os.Chown(scratch, user.UID, user.GID); err != nil {
			done()
			return nil, nil, exitcode.New(exitcode.Failure, fmt.Errorf("the run's scratch folder for %s: %w", user.Name, err))
		}
	}
	w := &agent.Writes{Scratch: scratch}
	if base := igit.PrivateBase(); base != "" {
		w.Never = []string{base}
	}
	switch {
	case box.Landlock == "off":
		log.Warn().Str("scratch", scratch).Msg("landlock: off (box.landlock): agents and verification commands may change whatever their user may, ralph-ci's git folders of other runs included; only the sweep before each git command holds against the run's own agent")
		return w, done, nil
	case shepherd.LandlockABI() == 0:
		log.Warn().Str("scratch", scratch).Msg("landlock: not available on this kernel: agents and verification commands may change whatever their user may, ralph-ci's git folders of other runs included; only the sweep before each git command holds against the run's own agent")
		return w, done, nil
	}
	w.Limit = true
	w.Paths = append(w.Paths, scratch)
	if c, err := igit.Find(root); err == nil {
		w.Paths = append(w.Paths, igit.Resolved(c.Top), igit.Resolved(c.GitDir), igit.Resolved(c.CommonDir))
	} else {
		w.Paths = append(w.Paths, igit.Resolved(root))
	}
	w.Paths = append(w.Paths, agent.Devices...)
	for _, p := range box.Writable {
		if _, err := os.Stat(p); err != nil {
			log.Warn().Str("path", p).Err(err).Msg("landlock: box.writable names a path that is not there: it stays unwritable")
		}
		w.Paths = append(w.Paths, p)
	}
	if out := w.RuledOut(w.Paths); len(out) > 0 {
		log.Warn().Strs("paths", out).Str("git", w.Never[0]).Msg("landlock: left out of what the processes may change: these hold or are inside ralph-ci's own git folder")
	}
	if out := w.RuledOut(w.Candidates(os.Environ())[len(w.Paths):]); len(out) > 0 {
		log.Warn().Strs("paths", out).Msg("landlock: the processes' HOME or tool folders hold ralph-ci's own git folder: they may not change them")
	}
	log.Info().Int("abi", shepherd.LandlockABI()).Strs("writable", w.For(nil)).Strs("tool_folders", w.For(os.Environ())[len(w.For(nil)):]).
		Str("tools", strings.Join(agent.ToolVars, " ")).Strs("never", w.Never).
		Msg("landlock: agents and verification commands may change only these, their HOME and the tool folders their environment names; they read everything")
	return w, done, nil
}

// scratchPrefix starts the name of a run's scratch folder, followed by
// the pid of its ralph-ci (internal/livedir: held while the run lives).
const scratchPrefix = "ralph-ci-scratch-"

// removeStaleScratch removes the scratch folders that runs killed with
// SIGKILL left in the temporary folder: those no live run holds and
// whose ralph-ci is gone (internal/livedir).
func removeStaleScratch() { livedir.RemoveStale(scratchPrefix) }
