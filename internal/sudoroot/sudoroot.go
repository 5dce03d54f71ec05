// Package sudoroot runs `ralph-ci run` again as root through passwordless
// sudo, so that the agent gets a user of its own (internal/agentuser)
// where the job's user can become root without a password, as the
// `runner` user of GitHub's hosted runners can.
//
// The invoking ralph-ci (not root) starts sudo -n -E on its own binary
// with the same arguments, in the same folder, with stdin, stdout and
// stderr passed through, and relays SIGINT, SIGTERM, SIGHUP and SIGQUIT;
// it exits with the code of the run as root. sudo replaces PATH (its
// secure_path), drops variables of its env_delete list (LD_*,
// PYTHONPATH, PERL5LIB, JAVA_TOOL_OPTIONS, ...) and sets LOGNAME, USER
// and MAIL to root's: so the whole environment, with the secrets read at
// the door (the job's token, the push-token) goes on a pipe instead, which
// the run as root opens through /proc (sudo closes every descriptor above
// 2) and reads once; nothing of it is ever on a command line, which
// /proc/PID/cmdline shows to every user. The run as root knows it came
// through sudo by SUDO_UID and SUDO_GID (sudo's own, kept), gives what it
// makes for the invoking user back to that user (Invoker), and never
// starts sudo again.
package sudoroot

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FromVar names where the run as root finds its payload: "PID/FD", the
// invoking ralph-ci's pipe.
const FromVar = "RALPH_SUDO_FROM"

// ErrNotStarted is Relaunch's error when the run as root never started.
var ErrNotStarted = errors.New("not started")

// Wanted tells whether a ralph-ci run with the config's box.user setting
// ("" or "auto" is the default), effective uid euid, and SUDO_UID
// sudoUID (set: it came through sudo already) asks sudo for root.
func Wanted(setting string, euid int, sudoUID string) bool {
	return (setting == "" || setting == "auto") && euid != 0 && sudoUID == ""
}

// Payload is what the run as root gets from the invoking ralph-ci.
type Payload struct {
	// Env is the invoking ralph-ci's whole environment (KEY=VALUE), the
	// entries it sealed away included.
	Env []string `json:"env"`
	// Token and PushToken are the secrets it read from descriptors or a
	// file ("" for none).
	Token     string `json:"token,omitempty"`
	PushToken string `json:"push_token,omitempty"`
}

// Encode is p as the pipe carries it.
func (p Payload) Encode() ([]byte, error) { return json.Marshal(p) }

// Decode reads a payload.
func Decode(raw []byte) (Payload, error) {
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return Payload{}, fmt.Errorf("the payload from the invoking ralph-ci: %w", err)
	}
	return p, nil
}

// Environ is the run as root's environment: the payload's (env), without
// any SUDO_* or FromVar entry and without the variables named in drop
// (descriptors and files the invoking ralph-ci consumed), with sudo's
// SUDO_* entries of own (the run as root's environment as sudo made it).
func Environ(env, own, drop []string) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SUDO_") || k == FromVar || contains(drop, k) {
			continue
		}
		out = append(out, kv)
	}
	for _, kv := range own {
		if strings.HasPrefix(kv, "SUDO_") {
			out = append(out, kv)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Invoker is the user who ran ralph-ci through sudo: SUDO_UID and
// SUDO_GID (getenv), when ralph-ci is root (euid 0) and they name a user
// other than root; ok is false otherwise.
func Invoker(euid int, getenv func(string) string) (uid, gid int, ok bool) {
	if euid != 0 {
		return 0, 0, false
	}
	u, err1 := strconv.Atoi(getenv("SUDO_UID"))
	g, err2 := strconv.Atoi(getenv("SUDO_GID"))
	if err1 != nil || err2 != nil || u <= 0 || g < 0 {
		return 0, 0, false
	}
	return u, g, true
}

// ParseFrom reads FromVar's value: the invoking ralph-ci's PID and the
// descriptor of its pipe.
func ParseFrom(v string) (pid, fd int, err error) {
	a, b, ok := strings.Cut(v, "/")
	pid, err1 := strconv.Atoi(a)
	fd, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || pid <= 1 || fd < 3 {
		return 0, 0, fmt.Errorf("%s=%q: want PID/FD", FromVar, v)
	}
	return pid, fd, nil
}
