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
func SignalContext(parent context.Context) (context.Context, *Caught) {
	ctx, cancel := context.WithCancel(parent)
	c := &Caught{}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			c.sig = s
			cancel()
		case <-ctx.Done():
		}
		signal.Stop(ch)
	}()
	return ctx, c
}
