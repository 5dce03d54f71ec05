package runhost

import (
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// Box is the box a run opened (OpenBox) for the host it builds
// (Policy): the kernel's boxes, none when off, and who is told what
// emptying one had to kill.
type Box struct {
	Boxes  *box.Boxes
	Killed func(command string, killed []box.Proc, err error)
}

// OpenBox opens the box every agent, verification command, judge and
// reviewer runs in (internal/box), for the run's host: flag is run --box
// ("" for the config's box.mode, config). Where the kernel gives no box
// and the mode is not off, it refuses with an error that says why and
// how to opt out. A log line says what holds. The returned function
// removes the run's boxes (call it once the loop is done). shepherd is
// ralph-ci's own executable, the first process of a PID namespace.
func OpenBox(log zerolog.Logger, shepherd, flag, config string) (Box, func(), error) {
	mode := box.Mode(config)
	if flag != "" {
		mode = box.Mode(flag)
	}
	if mode == "" {
		mode = box.Auto
	}
	if !slices.Contains(box.Modes, mode) {
		return Box{}, func() {}, exitcode.Usagef("box mode %q: want one of auto, cgroup, pidns, off", mode)
	}
	b, err := box.Open(mode, shepherd)
	if err != nil {
		return Box{}, func() {}, exitcode.New(exitcode.Failure, fmt.Errorf("box: %w; %s; %s", err, box.Ways, box.OptOut))
	}
	switch b.Kind() {
	case box.Off:
		log.Warn().Msg("box: off (" + box.OptOut[len("to run without one, "):] + ")")
	case box.PIDNS:
		log.Info().Str("kind", string(b.Kind())).Bool("user_namespace", b.UserNS()).
			Msg("box: every agent, verification command, judge and reviewer runs in a PID namespace of its own (no cgroup could be had), whose first process is ralph-ci's shepherd: when it ends, the kernel kills everything in it before ralph-ci goes on; no_new_privs")
	default:
		if b.Sudo() {
			log.Info().Str("cgroup", b.Where()).
				Msg("box: ralph-ci's own cgroup is not writable: delegated a cgroup to itself through sudo (sudo -n), removed at the end")
		}
		log.Info().Str("kind", string(b.Kind())).Str("cgroup", b.Where()).
			Msg("box: every agent, verification command, judge and reviewer runs in a cgroup of its own, emptied (cgroup.kill) before ralph-ci goes on; no_new_privs")
	}
	killed := func(command string, killed []box.Proc, err error) {
		if len(killed) > 0 {
			log.Warn().Str("command", command).Int("count", len(killed)).Str("killed", box.Names(killed)).
				Msg("box: killed the processes that outlived their command")
		}
		if err != nil {
			log.Error().Err(err).Str("command", command).Msg("box: could not empty the box")
		}
	}
	return Box{Boxes: b, Killed: killed}, func() {
		left, err := b.Close()
		if len(left) > 0 || err != nil {
			killed("ralph-ci", left, err)
		}
	}, nil
}
