package git

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestStderrFileIsBounded: a process that prints a megabyte to the
// in-memory file Run gives git as its standard error (a remote's messages
// come from the network) leaves it at stderrLimit bytes, and readStderr
// returns what was written, a short message exactly (no padding).
func TestStderrFileIsBounded(t *testing.T) {
	for _, c := range []struct {
		script string
		want   string
	}{
		{`echo "fatal: short"; exit 1`, "fatal: short\n"},
		{`yes remote: abcdefghijklmnopqrstuvwxyz | head -c 1000000; exit 1`, strings.Repeat("remote: abcdefghijklmnopqrstuvwxyz\n", 2000)[:stderrLimit]},
	} {
		f := stderrFile()
		if f == nil {
			t.Skip("no memfd here")
		}
		cmd := exec.Command("sh", "-c", "exec >&2; "+c.script)
		cmd.Stderr = f
		_ = cmd.Run()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != stderrLimit {
			t.Errorf("%s: the file grew to %d bytes, want %d", c.script, fi.Size(), stderrLimit)
		}
		var b bytes.Buffer
		readStderr(f, &b)
		if b.String() != c.want {
			t.Errorf("%s: read %d bytes %.40q…, want %d bytes", c.script, b.Len(), b.String(), len(c.want))
		}
		f.Close()
	}
}
