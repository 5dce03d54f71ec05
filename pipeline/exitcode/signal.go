package exitcode

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Caught remembers which signal cancelled a command.
type Caught struct{ sig os.Signal }

// Code is the exit code of the caught signal: 128+signal (130 when none
// was caught).
func (c *Caught) Code() Code {
	if s, ok := c.sig.(syscall.Signal); ok {
		return Code(128 + int(s))
	}
	return Interrupted
}

// SignalContext cancels the context on SIGINT or SIGTERM: the agent's
// process group is stopped, state is kept, and the exit code is 128+signal.
// Signals after the first are caught too and change nothing: the Actions
// runner cancels a step with SIGINT and then SIGTERM, and a run killed
// by the second while it stops would leave the work tree lent to the
// agent's user.
func SignalContext(parent context.Context) (context.Context, *Caught) {
	ctx, cancel := context.WithCancel(parent)
	c := &Caught{}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			c.sig = s
			cancel()
			for range ch { // the next ones wait for the run's end
			}
		case <-ctx.Done():
			signal.Stop(ch)
		}
	}()
	return ctx, c
}
