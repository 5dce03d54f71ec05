package e2e

import (
	"context"
	"os"
	"time"
)

// RalphPushToken runs the binary with extra environment and the
// push-token input on descriptor 4, as the Action hands it.
func (w *PRWorld) RalphPushToken(want int, token string, extra []string, args ...string) (string, string) {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, o, e := w.Command(ctx, args...)
	cmd.Env = append(append(cmd.Env, extra...), "RALPH_PUSH_TOKEN_FD=4")
	r3, w3, _ := os.Pipe()
	r4, w4, _ := os.Pipe()
	w3.Close()
	w4.WriteString(token + "\n")
	w4.Close()
	cmd.ExtraFiles = []*os.File{r3, r4}
	w.Exit(want, cmd.Run(), args, o, e)
	r3.Close()
	r4.Close()
	return o.String(), e.String()
}

// SetEventJSON makes payload the job's event.
func (w *PRWorld) SetEventJSON(payload string) {
	if err := os.WriteFile(w.Event, []byte(payload), 0o644); err != nil {
		w.T.Fatal(err)
	}
}
