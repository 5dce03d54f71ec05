package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

const (
	// killWait bounds the wait for the processes to vanish after SIGKILL.
	killWait = 5 * time.Second
	// Once no process of the group is left, the output is read until its
	// end, unless the pipe stays silent for drainWait, or drainMax passes:
	// a process that left the group (setsid) may still hold the pipe, and
	// is not waited for.
	drainWait = time.Second
	drainMax  = 30 * time.Second
	// pollEvery is how often the process group is checked while stopping.
	pollEvery = 10 * time.Millisecond
	// readChunk is the size of the output read buffer.
	readChunk = 64 << 10
)

// chunks holds output read buffers for reuse: one per rotation would be
// most of what a rotation allocates.
var chunks = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// process is a started agent: its process group, and the goroutines that
// feed its stdin and read its output.
type process struct {
	cmd   *exec.Cmd
	grace time.Duration
	// shepherded: the command runs under a shepherd (internal/shepherd), which
	// gets the grace period itself before ralph-ci kills it.
	shepherded bool
	// box is the process's box (nil for none), emptied by settle.
	box     *box.Box
	host    *Host
	name    string   // the command, as the config names it
	out     *os.File // read end of the stdout+stderr pipe
	in      *os.File // write end of the stdin pipe
	waitCh  chan error
	waited  bool
	waitErr error
	readCh  chan error
	inDone  chan struct{}
	// progress counts the chunks read; idle tells that the reading
	// goroutine waits for the pipe (and not for the output writer).
	progress atomic.Int64
	idle     atomic.Bool
	// writeErr is the first error writing to the output; it is set by the
	// reading goroutine and read after readCh.
	writeErr error
}

// startProcess starts the agent in a process group of its own. Its stdout
// and stderr are one pipe, so the order of their writes is kept; it is
// read into output and scanner as it arrives.
func startProcess(inv Invocation, shepherd string, output, scanner io.Writer) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("creating output pipe: %w", err)
	}
	argv, env, err := inv.Host.prepare(inv)
	var cmd *exec.Cmd
	var shepherded bool
	if err == nil {
		inv.Argv = argv
		cmd, shepherded, err = command(inv, shepherd, env)
	}
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	setGroup(cmd, shepherded)
	err = inv.Host.runAs(cmd, shepherded)
	var bx *box.Box
	if err == nil {
		bx, err = inv.Host.newBox()
	}
	if err == nil {
		err = bx.Prepare(cmd)
	}
	if err == nil {
		err = inv.Host.start(cmd)
	}
	inR.Close() // the agent has its own copies
	outW.Close()
	if err != nil {
		_, _ = bx.Empty(0)
		inW.Close()
		outR.Close()
		return nil, err
	}
	p := &process{
		cmd: cmd, grace: inv.Grace, shepherded: shepherded, box: bx, host: inv.Host, name: inv.Argv[0], out: outR, in: inW,
		waitCh: make(chan error, 1), readCh: make(chan error, 1), inDone: make(chan struct{}),
	}
	go func() { p.waitCh <- cmd.Wait() }()
	go func() {
		defer close(p.inDone)
		_, _ = io.WriteString(inW, inv.Prompt) // EPIPE if the agent does not read it
		inW.Close()
	}()
	go p.read(inv.Host.list(), output, scanner)
	return p, nil
}

// command is the process to start for inv with the environment env: the
// command itself, or the shepherd exe ("" for none) that starts it
// (shepherded).
func command(inv Invocation, exe string, env []string) (cmd *exec.Cmd, shepherded bool, err error) {
	if exe == "" {
		cmd = exec.Command(inv.Argv[0], inv.Argv[1:]...)
	} else {
		path, err := resolve(inv.Argv[0], inv.Dir)
		if err != nil {
			return nil, false, err
		}
		args := shepherd.Args(inv.Grace, inv.Host.writes(env), append([]string{path}, inv.Argv[1:]...))
		if port := inv.Host.connectOnly(); port != 0 {
			args = shepherd.WithConnect(args, strconv.Itoa(port))
		}
		cmd = &exec.Cmd{Path: exe, Args: args}
	}
	cmd.Dir = inv.Dir
	return cmd, exe != "", nil
}

// read copies the output, with secrets (longest first) masked, to output
// and scanner until the pipe ends or is aborted.
func (p *process) read(secrets []string, output, scanner io.Writer) {
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	buf := *bp
	dst, flush := newMaskerOf(secrets, splitWriter{p, output, scanner})
	for {
		p.idle.Store(true)
		n, err := p.out.Read(buf)
		p.idle.Store(false)
		p.progress.Add(1)
		if n > 0 {
			_, _ = dst.Write(buf[:n])
		}
		if err != nil {
			_ = flush()
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) {
				err = nil
			}
			p.readCh <- err
			return
		}
	}
}

// splitWriter writes the (masked) output to the output writer, keeping its
// first error, and to the scanner.
type splitWriter struct {
	p               *process
	output, scanner io.Writer
}

// Write implements io.Writer.
func (s splitWriter) Write(b []byte) (int, error) {
	if s.p.writeErr == nil {
		if _, err := s.output.Write(b); err != nil {
			s.p.writeErr = err
		}
	}
	_, _ = s.scanner.Write(b)
	return len(b), nil
}

// leaderDone tells whether the agent's main process has exited (and was
// reaped).
func (p *process) leaderDone() bool {
	if !p.waited {
		select {
		case err := <-p.waitCh:
			p.waited, p.waitErr = true, err
		default:
		}
	}
	return p.waited
}

// gone tells whether no process of the agent's group is left.
func (p *process) gone() bool {
	return p.leaderDone() && !groupAlive(p.cmd)
}

// settle makes sure no process of the agent's group is left: if any is, the
// group gets SIGTERM, then SIGKILL after the grace period. Then its box,
// if it has one, is emptied: what outlived it is killed, whatever group
// or parent it has; then what the agent's user planted in ralph-ci's
// folder of the tree is removed (Host.sweep).
func (p *process) settle() error {
	err := p.settleGroup()
	killed, berr := p.box.Empty(p.cmd.Process.Pid)
	p.host.emptied(p.name, killed, berr)
	if berr != nil {
		err = errors.Join(err, fmt.Errorf("agent %q: %w", p.name, berr))
	}
	if serr := p.host.sweep(); serr != nil { // the box is empty: nothing plants again
		err = errors.Join(err, serr)
	}
	return err
}

// settleGroup makes sure no process of the agent's group is left.
func (p *process) settleGroup() error {
	if p.gone() {
		return nil
	}
	signalGroup(p.cmd, false)
	wait := p.grace
	if p.shepherded {
		wait += killWait
	}
	if p.waitGone(wait) {
		return nil
	}
	signalGroup(p.cmd, true)
	if p.waitGone(killWait) {
		return nil
	}
	if !p.waited {
		return fmt.Errorf("agent %q (pid %d) did not exit after SIGKILL", p.cmd.Path, p.cmd.Process.Pid)
	}
	return nil // members left that cannot be killed: nothing more to do
}

// waitGone waits up to d for the group to vanish.
func (p *process) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !p.gone() {
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case err := <-p.waitCh:
			p.waited, p.waitErr = true, err
		case <-time.After(pollEvery):
		}
	}
	return true
}

// drain reads the output to its end, but stops once the pipe stayed
// silent for drainWait or after drainMax, and releases the pipes. A slow
// output writer does not count as silence.
func (p *process) drain() error {
	start := time.Now()
	last, quiet := p.progress.Load(), start
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var err error
wait:
	for {
		select {
		case err = <-p.readCh:
			break wait
		case now := <-tick.C:
			if n := p.progress.Load(); n != last || !p.idle.Load() {
				last, quiet = n, now
			}
			if now.Sub(quiet) >= drainWait || now.Sub(start) >= drainMax {
				abortRead(p.out)
				err = <-p.readCh
				break wait
			}
		}
	}
	p.out.Close()
	_ = p.in.SetWriteDeadline(time.Now()) // unblocks a prompt nobody reads
	<-p.inDone
	if err != nil {
		return fmt.Errorf("reading output of agent %q: %w", p.cmd.Path, err)
	}
	return nil
}
