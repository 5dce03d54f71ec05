package box

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sudoPaths are where ralph-ci looks for sudo: system folders only, never
// $PATH, which the job or a checkout's script may have changed.
var sudoPaths = []string{"/usr/bin/sudo", "/bin/sudo", "/usr/sbin/sudo", "/usr/local/bin/sudo"}

// sudoWait bounds one sudo -n: a guard against a hang, as sudo -n never
// prompts.
const sudoWait = 30 * time.Second

// sudoPrefix names the cgroups ralph-ci delegates to itself through sudo,
// at the cgroup2 mount's root: sudoPrefix + PID.
const sudoPrefix = "ralph-ci-sudo-"

// delegation is a cgroup ralph-ci delegated to itself through sudo, as
// systemd delegates one: made at the cgroup2 mount's root, its folder,
// cgroup.procs, cgroup.threads and cgroup.subtree_control chowned to
// ralph-ci's user, ralph-ci moved into it from back, its old cgroup.
type delegation struct {
	sudo, dir, back string
}

// delegateBySudo makes ralph-ci's cgroup writable by its user through
// passwordless sudo (sudo -n: it never prompts): it makes a cgroup at the
// cgroup2 mount's root, chowns it as systemd delegates one, and moves
// ralph-ci into it. Delegated cgroups of ralph-ci runs of this user that
// are gone are removed first. own is ralph-ci's cgroup now.
func delegateBySudo(own string) (*delegation, error) {
	if os.Geteuid() == 0 {
		return nil, errors.New("root needs no sudo")
	}
	sudo := ""
	for _, p := range sudoPaths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			sudo = p
			break
		}
	}
	if sudo == "" {
		return nil, errors.New("no sudo in " + strings.Join(sudoPaths, ", "))
	}
	mount, _, err := cgroup2Mount()
	if err != nil {
		return nil, err
	}
	stale := removeStaleDelegations(mount)
	d := &delegation{sudo: sudo, dir: filepath.Join(mount, sudoPrefix+strconv.Itoa(os.Getpid())), back: own}
	// $1 the cgroup, $2 uid:gid, $3 ralph-ci's pid, then stale cgroups
	// (their boxes already removed) to empty and remove.
	const script = `set -e
d=$1; o=$2; p=$3; shift 3
for s in "$@"; do echo 1 > "$s/cgroup.kill" 2>/dev/null || true; rmdir "$s" 2>/dev/null || true; done
mkdir "$d"
chown "$o" "$d" "$d/cgroup.procs" "$d/cgroup.threads" "$d/cgroup.subtree_control"
echo "$p" > "$d/cgroup.procs"
`
	args := append([]string{d.dir, strconv.Itoa(os.Geteuid()) + ":" + strconv.Itoa(os.Getegid()), strconv.Itoa(os.Getpid())}, stale...)
	if err := d.run(script, args...); err != nil {
		_ = d.run(`rmdir "$1" 2>/dev/null || true`, d.dir)
		return nil, err
	}
	return d, nil
}

// run runs sh -c script with args through sudo -n, with a minimal
// environment.
func (d *delegation) run(script string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), sudoWait)
	defer cancel()
	argv := append([]string{"-n", "--", "/bin/sh", "-c", script, "sh"}, args...)
	cmd := exec.CommandContext(ctx, d.sudo, argv...)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	cmd.Dir = "/"
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal to prompt on
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s -n: %w: %s", d.sudo, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// undo moves ralph-ci (and any process of its own left in the delegated
// cgroup, the sudo of this very move included) back to its old cgroup and
// removes the delegated one.
func (d *delegation) undo() error {
	const script = `d=$1; b=$2
for i in 1 2 3; do
  while read -r p; do echo "$p" > "$b/cgroup.procs" 2>/dev/null || true; done < "$d/cgroup.procs"
done
rmdir "$d"
`
	if err := d.run(script, d.dir, d.back); err != nil {
		return fmt.Errorf("removing the cgroup delegated through sudo: %w", err)
	}
	return nil
}

// removeStaleDelegations empties the boxes of the cgroups delegated through
// sudo to this user's ralph-ci runs that are gone (this user may), and
// returns those cgroups, which only root may remove.
func removeStaleDelegations(mount string) []string {
	entries, _ := os.ReadDir(mount)
	var stale []string
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), sudoPrefix))
		if err != nil || !e.IsDir() || !strings.HasPrefix(e.Name(), sudoPrefix) || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			continue // its ralph-ci still runs
		}
		dir := filepath.Join(mount, e.Name())
		var st syscall.Stat_t
		if syscall.Stat(dir, &st) != nil || int(st.Uid) != os.Geteuid() {
			continue // another user's
		}
		subs, _ := os.ReadDir(dir)
		for _, s := range subs {
			if s.IsDir() {
				_, _ = kill(filepath.Join(dir, s.Name()), 0)
			}
		}
		stale = append(stale, dir)
	}
	return stale
}
