package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// Seal starts ralph-ci again (exec, same process) without the job's
// credentials and files, and the model APIs' keys (the proxy holds them),
// in its environment: /proc/PID/environ shows a
// process's environment as it was started, to every process of the same
// user (and to root), so unsetting the variables would not hide them. The
// entries it removed reach the new image on a pipe, read once at the door
// (unsealed). Already sealed, or with nothing to remove, it returns; when
// exec fails, ralph-ci goes on unsealed and says so.
func Seal(args []string) {
	if os.Getenv(sealedFDVar) != "" {
		return
	}
	var keep, moved []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if agent.Removed(name, agent.EnvPolicy{}) || agent.ModelKey(name) {
			moved = append(moved, kv)
		} else {
			keep = append(keep, kv)
		}
	}
	if len(moved) == 0 {
		return
	}
	if err := execSealed(args, keep, moved); err != nil {
		fmt.Fprintf(os.Stderr, "ralph-ci: warning: cannot take the job's credentials out of its own environment: %v\n", err)
	}
}

func execSealed(args, keep, moved []string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	payload := strings.Join(moved, "\x00")
	if len(payload) > 60<<10 { // more than a pipe holds without a reader
		r.Close()
		w.Close()
		return fmt.Errorf("the variables to seal hold %d bytes", len(payload))
	}
	_, err = w.WriteString(payload)
	w.Close()
	if err != nil {
		r.Close()
		return err
	}
	fd := r.Fd()
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, 0); errno != 0 {
		r.Close()
		return errno
	}
	env := append(keep, sealedFDVar+"="+strconv.Itoa(int(fd)))
	err = syscall.Exec("/proc/self/exe", args, env)
	r.Close()
	return err
}
