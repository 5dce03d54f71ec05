package actions

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// Output is one step output: a name and its value.
type Output struct {
	Name, Value string
}

// Outputs are the step outputs of a report, in this order:
//
//	status     the exit class (done, limits, stuck, ...)
//	message    the exit message (may span lines)
//	specs, verified, pending, failed, stuck, awaiting   counts of specs;
//	           verified counts every spec at 3/3, awaiting ones included
//	           (Totals.AllVerified), as action.yml describes it
//	rotations  rotations run
//	cost_usd   their reported cost in US dollars
//	junit, json  the report files written ("" for none), relative to the workspace
//
// The exit code is not among them: the command writes it once, as the
// exit-code output, with the code the process really ends with
// (jobenv.Env.Exit), the same name and value for every command.
func Outputs(r *report.Report, junit, json string) []Output {
	t := r.Totals
	return []Output{
		{"status", r.Exit.Class},
		{"message", r.Exit.Message},
		{"specs", strconv.Itoa(t.Specs)},
		{"verified", strconv.Itoa(t.AllVerified())},
		{"pending", strconv.Itoa(t.Pending)},
		{"failed", strconv.Itoa(t.Failed)},
		{"stuck", strconv.Itoa(t.Stuck)},
		{"awaiting", strconv.Itoa(t.Awaiting)},
		{"rotations", strconv.Itoa(t.Rotations)},
		{"cost_usd", strconv.FormatFloat(finite(t.CostUSD), 'f', 4, 64)},
		{"junit", junit},
		{"json", json},
	}
}

// WriteOutputs writes outputs in the format of $GITHUB_OUTPUT: "name=value"
// for a one-line value, and for a value with a line break
//
//	name<<ghadelimiter_RANDOM
//	value
//	ghadelimiter_RANDOM
//
// with a random delimiter (from src; crypto/rand when nil) that the value
// does not contain. Values are cleaned of control characters.
func WriteOutputs(w io.Writer, outputs []Output, src io.Reader) error {
	var b strings.Builder
	for _, o := range outputs {
		if o.Name == "" || strings.ContainsAny(o.Name, "=<\r\n") {
			return fmt.Errorf("step output %q: invalid name", o.Name)
		}
		v := text.CleanText(o.Value)
		if !strings.Contains(v, "\n") {
			fmt.Fprintf(&b, "%s=%s\n", o.Name, v)
			continue
		}
		delim, err := delimiter(v, src)
		if err != nil {
			return fmt.Errorf("step output %s: %w", o.Name, err)
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.Name, delim, v, delim)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write step outputs: %w", err)
	}
	return nil
}

// delimiter is a random heredoc delimiter that does not occur in value.
func delimiter(value string, src io.Reader) (string, error) {
	for range 10 {
		token, err := Token(src)
		if err != nil {
			return "", err
		}
		if d := "ghadelimiter_" + token; !strings.Contains(value, d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("no delimiter found that the value does not contain")
}

// appendFile appends what write produces to the file at path, in one write
// so that a concurrent writer of the same file does not interleave with it.
func appendFile(path string, write func(io.Writer) error) error {
	var b strings.Builder
	if err := write(&b); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// AppendOutputs appends step outputs to the GITHUB_OUTPUT file.
func AppendOutputs(path string, outs []Output) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write the step outputs: %w", err)
	}
	err = WriteOutputs(f, outs, nil)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the step outputs: %w", err)
	}
	return nil
}
