package seal

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Token reads the job's token as the Action hands it: from the
// descriptor fdVar names or the file fileVar names (Secret), else from
// GITHUB_TOKEN.
func Token(getenv func(string) string, fdVar, fileVar string) (string, error) {
	if getenv(fdVar) != "" || getenv(fileVar) != "" {
		return Secret(getenv, fdVar, fileVar)
	}
	return getenv("GITHUB_TOKEN"), nil
}

// Secret reads a secret from the file descriptor the variable fdVar
// names, else from the file fileVar names (read, then deleted: the
// Action's way on Windows, whose programs inherit no descriptor above
// 2), else it is "".
func Secret(getenv func(string) string, fdVar, fileVar string) (string, error) {
	if getenv(fdVar) != "" {
		return readFD(getenv, fdVar, fileVar)
	}
	file := getenv(fileVar)
	if file == "" {
		return "", nil
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("reading the token from %s: %w", fileVar, err)
	}
	raw, rerr := readSmall(f)
	f.Close()
	if err := os.Remove(file); err != nil && rerr == nil {
		rerr = fmt.Errorf("deleting it: %w", err)
	}
	if rerr != nil {
		return "", fmt.Errorf("reading the token from %s %s: %w", fileVar, file, rerr)
	}
	return strings.TrimSpace(string(raw)), nil
}

// readFD reads a secret from the file descriptor the variable name names
// (fileVar is how to hand it where there are no descriptors).
func readFD(getenv func(string) string, name, fileVar string) (string, error) {
	fd := getenv(name)
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return "", fmt.Errorf("%s=%q: want a file descriptor number above 2", name, fd)
	}
	if runtime.GOOS == "windows" {
		return "", fmt.Errorf("%s=%d: a Windows program inherits no file descriptor above 2: name a file holding the token in %s instead (read, then deleted)", name, n, fileVar)
	}
	f := os.NewFile(uintptr(n), "token")
	if f == nil {
		return "", fmt.Errorf("%s=%d is not an open file descriptor", name, n)
	}
	defer f.Close()
	raw, err := readSmall(f)
	if err != nil {
		return "", fmt.Errorf("reading the token from %s=%d: %w", name, n, err)
	}
	return strings.TrimSpace(string(raw)), nil
}
