package git

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
)

// Objects reads objects of a checkout's store and verifies each against
// its id: the store is in the agent's reach (it can overwrite an object's
// file or plant a pack), so what ralph-ci trusts is what hashes to the id
// ralph-ci asked for, nothing else. One git cat-file process serves every
// read; Close ends it.
type Objects struct {
	in    io.WriteCloser
	out   *bufio.Reader
	wait  func() error
	limit int64
}

// ErrMissing is returned for an object the store does not hold.
var ErrMissing = errors.New("no such object")

// OpenObjects starts reading objects in the checkout around dir; objects
// larger than limit bytes are refused.
func OpenObjects(ctx context.Context, dir string, limit int64) (*Objects, error) {
	pr, pw := io.Pipe()
	out, wait, err := Command{Dir: dir, Args: []string{"cat-file", "--batch"}, Stdin: pr}.Start(ctx)
	if err != nil {
		pw.Close()
		return nil, err
	}
	return &Objects{in: pw, out: bufio.NewReader(out), wait: func() error { err := wait(); pr.Close(); return err }, limit: limit}, nil
}

// Close ends the reading.
func (o *Objects) Close() error {
	o.in.Close()
	return o.wait()
}

// Read returns the type and content of object id, verified.
func (o *Objects) Read(id string) (typ string, content []byte, err error) {
	if !IsID(id) {
		return "", nil, fmt.Errorf("%q is not an object id", id)
	}
	if _, err := io.WriteString(o.in, id+"\n"); err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	header, err := o.out.ReadString('\n')
	if err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		return "", nil, fmt.Errorf("object %s: %w", id, ErrMissing)
	}
	if len(f) != 3 || f[0] != id {
		return "", nil, fmt.Errorf("read object %s: unexpected %q", id, header)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 || size > o.limit {
		return "", nil, fmt.Errorf("object %s: size %s over the limit of %d bytes", id, f[2], o.limit)
	}
	content = make([]byte, size+1) // and the newline after it
	if _, err := io.ReadFull(o.out, content); err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", id, err)
	}
	content = content[:size]
	if got := ObjectID(f[1], content, len(id)); got != id {
		return "", nil, fmt.Errorf("object %s does not hash to its id (%s): the object store was tampered with", id, got)
	}
	return f[1], content, nil
}

// NewObjectHash starts git's hash of an object of type typ ("blob",
// "commit"…) and size bytes: its header "TYPE SIZE\x00" is written, the
// content is to follow. The hash is sha1, or sha256 when the repository's
// ids are 64 hex digits long (idLen).
func NewObjectHash(typ string, size int64, idLen int) hash.Hash {
	var h hash.Hash = sha1.New()
	if idLen == sha256.Size*2 {
		h = sha256.New()
	}
	h.Write([]byte(typ + " " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// ObjectID is git's id of an object of type typ with content, in the
// object format whose ids are idLen hex digits long (40 or 64).
func ObjectID(typ string, content []byte, idLen int) string {
	h := NewObjectHash(typ, int64(len(content)), idLen)
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// Commit is a commit as ralph-ci reads it.
type Commit struct {
	ID, Tree string
	Parents  []string
	Message  string
}

// Commit reads and parses commit id.
func (o *Objects) Commit(id string) (Commit, error) {
	typ, raw, err := o.Read(id)
	if err != nil {
		return Commit{}, err
	}
	if typ != "commit" {
		return Commit{}, fmt.Errorf("object %s is a %s, not a commit", id, typ)
	}
	c := Commit{ID: id}
	head, msg, _ := bytes.Cut(raw, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(head), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			c.Tree = v
		case "parent":
			c.Parents = append(c.Parents, v)
		}
	}
	if !IsID(c.Tree) {
		return Commit{}, fmt.Errorf("commit %s names no tree", id)
	}
	return c, nil
}

// Blob is the id and content of path (slash-separated) in commit's tree,
// each object on the way verified; ErrMissing when the tree has no file
// there.
func (o *Objects) Blob(commit, path string) (id string, content []byte, err error) {
	c, err := o.Commit(commit)
	if err != nil {
		return "", nil, err
	}
	id = c.Tree
	parts := strings.Split(path, "/")
	for i, name := range parts {
		typ, raw, err := o.Read(id)
		if err != nil {
			return "", nil, err
		}
		if typ != "tree" {
			return "", nil, fmt.Errorf("%s: %w", path, ErrMissing)
		}
		mode, next, ok := treeEntry(raw, name, len(id)/2)
		if !ok || (i < len(parts)-1) != (mode == "40000") {
			return "", nil, fmt.Errorf("%s: %w", path, ErrMissing)
		}
		id = next
	}
	typ, content, err := o.Read(id)
	if err != nil {
		return "", nil, err
	}
	if typ != "blob" {
		return "", nil, fmt.Errorf("%s: %w", path, ErrMissing)
	}
	return id, content, nil
}

// treeEntry finds name in a raw tree: entries of "MODE NAME\0" and the
// binary id.
func treeEntry(raw []byte, name string, idBytes int) (mode, id string, ok bool) {
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		nul := bytes.IndexByte(raw, 0)
		if sp < 0 || nul < sp || nul+1+idBytes > len(raw) {
			return "", "", false
		}
		if string(raw[sp+1:nul]) == name {
			return string(raw[:sp]), hex.EncodeToString(raw[nul+1 : nul+1+idBytes]), true
		}
		raw = raw[nul+1+idBytes:]
	}
	return "", "", false
}

// Trailers are the trailers of a commit message, parsed by ralph-ci: the
// lines "Key: value" of its last paragraph when every line there is one
// (a line starting with white space continues the one before). Git's
// trailer.* configuration plays no part.
func Trailers(message string) map[string][]string {
	paras := strings.Split(strings.TrimRight(strings.ReplaceAll(message, "\r\n", "\n"), "\n"), "\n\n")
	if len(paras) < 2 {
		return nil
	}
	last := paras[len(paras)-1]
	out := map[string][]string{}
	var key string
	for _, line := range strings.Split(last, "\n") {
		if key != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			vs := out[key]
			vs[len(vs)-1] += " " + strings.TrimSpace(line)
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || !isTrailerKey(k) {
			return nil
		}
		key = k
		out[k] = append(out[k], strings.TrimSpace(v))
	}
	return out
}

func isTrailerKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}
